// How the pieces are put together for one bot: a message bus with the hygiene interceptor first,
// the confirm gate (which installs its own interceptor after it), the tool gate with data_modify
// and the confirm gate, the chat settings, the scripted model, the agent loop, and the chat
// channel attached last. Every piece gets the same clock, so the scripted run needs no real time.
// Pending confirmations live in `store`: a bot started on the same store after a restart asks
// nothing again, and runs a confirmed action through the confirm gate's `resume` handler.
import {
  type ChannelAdapter,
  createHygieneInterceptor,
  createMessageBus,
  dispatchBySession,
  type InboundMessage,
  type OutboundMessage,
  parseSessionKey,
} from '@parley/bus';
import { type ConfirmGate, createConfirmGate, type ResumeHandler } from '@parley/confirm';
import { type Clock, createMemoryStore, type IdGenerator, type Store } from '@parley/core';
import type { Ledger } from '@parley/ledger';
import { createScriptedModel, type ScriptedModel } from '@parley/testing';
import { createToolGate, toOpenAITools } from '@parley/tools';
import { runSql, type SqlDatabase, type SqlResult } from './database.js';
import { type ModelOutput, type ModelRequest, shopAssistant } from './script.js';
import { type ChatSettings, createChatSettings } from './settings.js';
import { dataModify, describeCall, noSessionControl } from './tool.js';

export interface ShopBotOptions {
  readonly db: SqlDatabase;
  /** The chat platform: the fake channel in the scripted runs, a real adapter with --platform. */
  readonly channel: ChannelAdapter;
  readonly clock: Clock;
  /** Confirmation ids; nanoid by default. */
  readonly generateId?: IdGenerator;
  readonly log: (line: string) => void;
  /** Pending confirmations and decisions (and the settings); a memory store of its own by default. */
  readonly store?: Store;
  /**
   * The consent ledger (none by default): the confirm gate appends each request, delivered prompt,
   * answer, decision and authorization, the tool gate the effect of each SQL statement it ran.
   */
  readonly ledger?: Ledger;
  /** Called whenever something a driver may wait for happened (a reply, a prompt, a decision). */
  readonly onProgress?: () => void;
}

export interface ShopBot {
  readonly confirm: ConfirmGate;
  readonly model: ScriptedModel<ModelOutput, ModelRequest>;
  readonly settings: ChatSettings;
  /** Every message the agent read, in order. */
  readonly seen: readonly InboundMessage[];
  /**
   * Live counts: messages the agent fully handled, confirmations from before a restart answered and
   * handled here, confirmation prompts sent.
   */
  readonly counts: { readonly handled: number; readonly resumed: number; readonly prompts: number };
  /**
   * Closes the confirm gate and the bus, then waits for the agent loop to end. `crash`: the bus
   * first, so nothing more is said, as when the process dies; the store keeps what is pending.
   */
  close(how?: 'crash'): Promise<void>;
}

export async function createShopBot(options: ShopBotOptions): Promise<ShopBot> {
  const { clock, log, db } = options;
  const progress = (): void => options.onProgress?.();
  const counts = { handled: 0, resumed: 0, prompts: 0 };
  const store = options.store ?? createMemoryStore({ clock });
  const settings = createChatSettings(store, clock);
  const bus = createMessageBus({ clock });
  // First: the bot's own echoes, other bots, edits, recalls and redelivered events never count
  // as anyone's answer (a redelivered 确认 must not confirm twice).
  bus.intercept(createHygieneInterceptor());
  /** A confirmation asked before a restart: run it here once the gate authorizes it, and say so. */
  const resumeDataModify: ResumeHandler = async (decision, gate) => {
    const auth = await gate.authorize(decision, decision.action);
    const { sql } = decision.action.args as { sql: string }; // the args the person confirmed
    const text = auth.ok
      ? `已执行 ${(await runSql(db, sql, 'write')).command}（重启前请求的操作，确认于重启后）。`
      : `重启前请求的操作没有执行（${decision.outcome}）。`;
    // the gate recorded the authorization; the effect of what ran here is this handler's to record
    if (auth.ok)
      await options.ledger?.append(decision.sessionKey, {
        kind: 'effect',
        confirmationId: decision.id,
        outcome: 'succeeded',
      });
    log(`confirm: resumed ${decision.id} after the restart → ${auth.ok ? 'ran' : 'not run'}`);
    await bus.publishOutbound({ ...parseSessionKey(decision.sessionKey), text });
    counts.resumed++;
    progress();
  };
  // approvers: 'requester' (the default): only the user whose message led to the call may answer.
  const confirm = createConfirmGate({
    bus,
    clock,
    store,
    resume: { data_modify: resumeDataModify },
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
  });
  const tools = createToolGate({
    tools: [dataModify],
    allowlist: ['data_modify'],
    policies: [noSessionControl],
    confirm,
    clock,
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
  });
  const model = createScriptedModel<ModelOutput, ModelRequest>({
    name: 'shop',
    clock,
    respond: shopAssistant,
  });

  bus.on('intercepted', ({ message, by }) => {
    if (by === 'confirm') log('  ↳ consumed by the confirm gate: it never reaches the agent');
    else if (message.fromSelf !== true) log(`  ↳ dropped by ${by}`);
  });
  bus.on('dropped', ({ direction, code }) => log(`bus: ${direction} message dropped (${code})`));
  confirm.on('prompted', () => {
    counts.prompts++;
    progress();
  });
  confirm.on('ignored', ({ code }) =>
    log(
      code === 'not_allowed'
        ? '  ↳ not counted as an answer (only the requester may answer): passed on to the agent as ordinary chat'
        : `  ↳ not counted as an answer (${code})`,
    ),
  );
  confirm.on('refused', ({ code, senderId }) => log(`confirm: card click by ${senderId} refused (${code})`));
  confirm.on('decided', ({ decision: d }) => {
    const by = d.decidedBy === undefined ? '' : ` by ${d.decidedBy}`;
    log(`confirm: ${d.id} ${d.outcome} (${d.reason}${by}${d.reply === undefined ? '' : ` «${d.reply}»`})`);
    progress();
  });
  confirm.on('error', ({ error }) => log(`confirm: error ${String(error)}`));
  tools.on('executed', ({ call }) => {
    const result = call.result as SqlResult; // data_modify's result
    log(`tool: ${call.tool} ran → ${result.command}, ${result.rowCount} row(s)`);
  });
  tools.on('refused', ({ failed: f }) =>
    log(`tool: ${f.tool} not run (${f.code}${f.tool_reason === undefined ? '' : `/${f.tool_reason}`})`),
  );

  // The agent: one turn per message, run by `dispatchBySession`: one turn at a time per chat, chats
  // side by side. Replies to a confirmation prompt never arrive here: the confirm gate consumes them.
  const offered = toOpenAITools([dataModify]);
  const seen: InboundMessage[] = [];
  let turn = 0;
  const reply = async ({ channel, chatId, threadId, eventId }: InboundMessage, text: string) => {
    const result = await bus.publishOutbound({ channel, chatId, threadId, text, replyTo: eventId });
    if (result.status === 'rejected') log(`agent: reply not delivered (${result.code})`);
  };
  /** Ask the model; run its calls through the tool gate (which may wait for 确认); ask again; reply. */
  async function answer(message: InboundMessage): Promise<void> {
    const base = { turn: ++turn, from: message.senderId, text: message.text, tools: offered };
    const first = await model(base);
    if (first.type === 'reply') return reply(message, first.text);
    const snapshot = await settings.snapshot(message.sessionKey); // this chat's settings, read fresh
    const context = { db, requireConfirmation: snapshot.get('safety.require_confirmation') };
    for (const call of first.calls) log(`model → ${describeCall(call, context)}`);
    // sessionKey: where a confirmation is asked; requester: who may answer it.
    const { sessionKey, senderId: requester } = message;
    const toolResults = await tools.process(first.calls, { turn, context, sessionKey, requester });
    const second = await model({ ...base, toolResults });
    return reply(
      message,
      second.type === 'reply' ? second.text : '（模型又提出了工具调用；本示例每轮只执行一次。）',
    );
  }
  const agent = dispatchBySession(bus, async (message) => {
    seen.push(message);
    if (message.kind !== 'message') log(`agent: ignores a ${message.kind} event from ${message.senderId}`);
    else {
      log(`agent ← ${message.senderId}: ${message.text}`);
      await answer(message).catch(async (error: unknown) => {
        log(`agent: turn failed: ${error instanceof Error ? error.message : String(error)}`);
        await reply(message, '抱歉，处理这条消息时出错了。');
      });
    }
    counts.handled++;
    progress();
  });
  // The adapter the bus sees: the platform plus a transcript line per bot message.
  const { channel } = options;
  await bus.attach({
    channel: channel.channel,
    send: async (message) => {
      log(`bot: ${formatOutbound(message)}`);
      await channel.send(message);
    },
    connect: (deliver) => channel.connect?.(deliver),
  });
  return {
    confirm,
    model,
    settings,
    seen,
    counts,
    async close(how) {
      if (how === 'crash') await bus.close();
      await confirm.close();
      await bus.close();
      await agent.done;
    },
  };
}

/** A bot message for the transcript: its text, and a card's title and buttons. */
export function formatOutbound({ text, card }: OutboundMessage): string {
  return card === undefined
    ? text
    : `${text}\n[card ${card.title ?? ''}: ${card.buttons.map((b) => b.label).join(' | ')}]`;
}
