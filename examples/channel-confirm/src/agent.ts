// The agent loop, as a host writes it: consume the bus's inbound messages one at a time, ask the
// model, hand its tool calls to the tool gate (which may wait for a confirmation in the chat, so
// the loop is blocked meanwhile, as in the reference design), ask the model again with the results,
// and reply in the same chat. Replies to confirmation prompts never arrive here: the confirm gate
// consumes them on the bus.
import type { InboundMessage, MessageBus } from '@parley/bus';
import type { ToolCallProposal, ToolGate } from '@parley/tools';
import { toOpenAITools } from '@parley/tools';
import { dataModify, type AgentContext } from './tool.js';
import type { ModelOutput, ModelRequest } from './script.js';

/** A message the agent read from the bus. */
export interface SeenMessage {
  readonly senderId: string;
  readonly text: string;
  readonly kind: InboundMessage['kind'];
}

export interface AgentOptions {
  readonly bus: MessageBus;
  readonly model: (request: ModelRequest) => Promise<ModelOutput>;
  readonly tools: ToolGate<'data_modify', AgentContext>;
  readonly context: AgentContext;
  readonly log: (line: string) => void;
  /** How a proposed call is shown in the transcript. */
  readonly describeCall?: (call: ToolCallProposal) => string;
  /** Called after each message is fully handled (reply sent). */
  readonly onHandled?: () => void;
  /** Per-call wait for a confirmation; the confirm gate's default otherwise. */
  readonly confirmTimeoutMs?: number;
}

export interface Agent {
  /** Messages fully handled so far. */
  readonly handled: number;
  /** Every message the agent read, in order. */
  readonly seen: readonly SeenMessage[];
  /** Resolves when the loop ends (the bus closed). */
  readonly done: Promise<void>;
}

/** Starts the agent loop on the bus; it ends when the bus closes. */
export function startAgent(options: AgentOptions): Agent {
  const { bus, model, tools, context, log } = options;
  const offered = toOpenAITools([dataModify]);
  const seen: SeenMessage[] = [];
  let handled = 0;
  let turn = 0;

  async function reply(message: InboundMessage, text: string): Promise<void> {
    const result = await bus.publishOutbound({
      channel: message.channel,
      chatId: message.chatId,
      threadId: message.threadId,
      text,
      replyTo: message.eventId,
    });
    if (result.status === 'rejected') log(`agent: reply not delivered (${result.code})`);
  }

  async function handle(message: InboundMessage): Promise<void> {
    turn++;
    const base = { turn, from: message.senderId, text: message.text, tools: offered };
    const first = await model(base);
    if (first.type === 'reply') {
      await reply(message, first.text);
      return;
    }
    for (const call of first.calls) {
      log(`model → ${options.describeCall?.(call) ?? `${call.tool} ${JSON.stringify(call.args)}`}`);
    }
    const toolResults = await tools.process(first.calls, {
      turn,
      context,
      sessionKey: message.sessionKey, // where the confirmation is asked
      requester: message.senderId, // who may answer it
      ...(options.confirmTimeoutMs === undefined ? {} : { confirmTimeoutMs: options.confirmTimeoutMs }),
    });
    const second = await model({ ...base, toolResults });
    await reply(
      message,
      second.type === 'reply' ? second.text : '（模型又提出了工具调用；本示例每轮只执行一次。）',
    );
  }

  async function loop(): Promise<void> {
    for await (const message of bus.inbound()) {
      seen.push({ senderId: message.senderId, text: message.text, kind: message.kind });
      if (message.kind === 'message') {
        log(`agent ← ${message.senderId}: ${message.text}`);
        try {
          await handle(message);
        } catch (error) {
          log(`agent: turn failed: ${error instanceof Error ? error.message : String(error)}`);
          await reply(message, '抱歉，处理这条消息时出错了。');
        }
      } else {
        log(`agent: ignores a ${message.kind} event from ${message.senderId}`);
      }
      handled++;
      options.onHandled?.();
    }
  }

  return {
    get handled() {
      return handled;
    },
    seen,
    done: loop(),
  };
}
