// The "Getting started" guide: a bot whose destructive command runs only after the person who
// asked replies 确认 (or clicks the confirm button) in the same chat. `startBot` is the code you
// keep; `main` plays a short conversation on a fake chat so the file runs on its own.
// Run it: npx tsx guides/code/getting-started.ts
// #region bot
import {
  type ChannelAdapter,
  createHygieneInterceptor,
  createMessageBus,
  dispatchBySession,
  type InboundMessage,
  type MessageBus,
} from '@parley/bus';
import { type ConfirmGate, createConfirmGate } from '@parley/confirm';
import { type Clock, createMemoryStore, type Store, systemClock } from '@parley/core';

/** Your data layer; here, the one destructive thing the bot can do. */
export interface Orders {
  deleteCancelled(): Promise<number>;
}

export interface BotOptions {
  /** Your chat platform (Telegram, Feishu, DingTalk…): see the guide "Add Parley to your grammY, Bolt or Feishu bot". */
  readonly adapter: ChannelAdapter;
  readonly orders: Orders;
  /** Where pending confirmations live. Memory by default; a Redis store once you run replicas. */
  readonly store?: Store;
  /** Time for every timeout. The system clock in production, a manual clock in tests. */
  readonly clock?: Clock;
}

export interface Bot {
  readonly bus: MessageBus;
  readonly gate: ConfirmGate;
  /** Stops taking messages, settles waiting confirmations as `aborted`, and waits for the handlers. */
  close(): Promise<void>;
}

export async function startBot(options: BotOptions): Promise<Bot> {
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  // First interceptor: the bot's own echoes, other bots, edits and redelivered events never reach
  // the gate or the agent, so a redelivered 确认 cannot confirm twice.
  bus.intercept(createHygieneInterceptor());
  // The gate adds its own interceptor: the reply to a prompt is consumed here, never queued.
  const gate = createConfirmGate({ bus, store, clock, timeoutMs: 2 * 60_000 });
  await bus.attach(options.adapter);

  // One message at a time per chat, chats at once: while one chat waits for its 确认, the others
  // are still answered (a plain `for await … bus.inbound()` loop would hold them all up).
  const dispatcher = dispatchBySession(bus, async (message) => {
    const text = message.text.trim() === '/purge' ? await purge(gate, options.orders, message) : help();
    await bus.publishOutbound({
      channel: message.channel,
      chatId: message.chatId,
      threadId: message.threadId,
      text,
    });
  });
  dispatcher.on('failed', ({ message, error }) =>
    console.error(`handler failed in ${message.sessionKey}`, error),
  );

  return {
    bus,
    gate,
    async close() {
      await gate.close();
      await bus.close();
      await dispatcher.done;
    },
  };
}

function help(): string {
  return 'Send /purge to delete every cancelled order.';
}
// #endregion bot

// #region guarded-action
/** Deletes the cancelled orders once the requester confirms in the chat the command came from. */
export async function purge(gate: ConfirmGate, orders: Orders, message: InboundMessage): Promise<string> {
  const action = { name: 'orders.delete_cancelled', args: { status: 'cancelled' } };
  const decision = await gate.request({
    sessionKey: message.sessionKey, // channel + chat (+ thread): where the prompt goes and the reply is read
    requester: message.senderId, // only this user's answer counts (approvers: 'requester', the default)
    action,
    summary: "DELETE FROM orders WHERE status = 'cancelled'",
  });
  // Re-checks the recorded decision: confirmed, for exactly this action, and not used before.
  const auth = await gate.authorize(decision, action);
  if (!auth.ok) return `Nothing deleted (${decision.outcome}).`;
  return `Deleted ${await orders.deleteCancelled()} cancelled orders.`;
}
// #endregion guarded-action

// #region demo
import { fileURLToPath } from 'node:url';
import { createManualClock, type ManualClock } from '@parley/core';
import { createFakeChannel } from '@parley/testing';

/** Plays three conversations (confirm, cancel, no answer) and returns the chat transcript. */
export async function main(
  clock: ManualClock = createManualClock({ now: Date.UTC(2026, 0, 1) }),
): Promise<string[]> {
  const channel = createFakeChannel({ channel: 'demo', clock }); // stands in for your platform
  let left = 3;
  const bot = await startBot({ adapter: channel, clock, orders: { deleteCancelled: async () => left-- } });
  const transcript: string[] = [];
  const exchange = async (reply: string | undefined): Promise<void> => {
    channel.clear();
    await channel.say('ops', 'alice', '/purge');
    const prompt = await channel.waitForSent('确认', { chatId: 'ops' });
    transcript.push(`alice: /purge`, `bot: ${prompt.text.split('\n')[0]}`);
    if (reply === undefined)
      clock.advance(2 * 60_000); // nobody answers for two minutes
    else {
      transcript.push(`alice: ${reply}`);
      await channel.say('ops', 'alice', reply);
    }
    transcript.push(`bot: ${(await channel.waitForSent(/deleted/i, { chatId: 'ops' })).text}`);
  };
  await exchange('确认');
  await exchange('取消');
  await exchange(undefined);
  await bot.close();
  return transcript;
}

// Run as a program (not when a test imports this file): print the transcript.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main()) console.log(line);
}
// #endregion demo
