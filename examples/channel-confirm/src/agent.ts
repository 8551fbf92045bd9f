// One turn of the agent, as a host writes it: ask the model, hand its tool calls to the tool gate
// (which may wait for a confirmation in the chat), ask the model again with the results, reply in
// the same chat. The loop over the bus is @parley/bus's `dispatchBySession`: one turn at a time per
// chat, chats side by side, so a confirmation waiting in one chat never blocks another. Replies to
// a confirmation prompt never arrive here: the confirm gate consumes them on the bus.
import { dispatchBySession, type InboundMessage, type MessageBus } from '@parley/bus';
import type { ToolCallProposal, ToolGate } from '@parley/tools';
import { toOpenAITools } from '@parley/tools';
import type { ModelOutput, ModelRequest } from './script.js';
import { type AgentContext, dataModify } from './tool.js';

/** A message the agent read from the bus. */
export interface SeenMessage {
  readonly senderId: string;
  readonly chatId: string;
  readonly text: string;
  readonly kind: InboundMessage['kind'];
}

export interface AgentOptions {
  readonly bus: MessageBus;
  readonly model: (request: ModelRequest) => Promise<ModelOutput>;
  readonly tools: ToolGate<'data_modify', AgentContext>;
  /** The context of one turn, read fresh when the turn starts (settings of that chat). */
  readonly context: (message: InboundMessage) => Promise<AgentContext>;
  readonly log: (line: string) => void;
  /** How a proposed call is shown in the transcript. */
  readonly describeCall: (call: ToolCallProposal, context: AgentContext) => string;
  /** Called after each message is fully handled (reply sent). */
  readonly onHandled?: () => void;
}

export interface Agent {
  /** Messages fully handled so far. */
  readonly handled: number;
  /** Every message the agent read, in order. */
  readonly seen: readonly SeenMessage[];
  /** Resolves when the bus closed and every taken message was handled. */
  readonly done: Promise<void>;
}

/** Starts handling the bus's inbound messages, one turn at a time per chat. */
export function startAgent(options: AgentOptions): Agent {
  const { bus, model, tools, log } = options;
  const offered = toOpenAITools([dataModify]);
  const seen: SeenMessage[] = [];
  let handled = 0;
  let turn = 0;

  const reply = async (message: InboundMessage, text: string): Promise<void> => {
    const { channel, chatId, threadId, eventId } = message;
    const result = await bus.publishOutbound({ channel, chatId, threadId, text, replyTo: eventId });
    if (result.status === 'rejected') log(`agent: reply not delivered (${result.code})`);
  };

  async function handle(message: InboundMessage): Promise<void> {
    turn++;
    const base = { turn, from: message.senderId, text: message.text, tools: offered };
    const first = await model(base);
    if (first.type === 'reply') return reply(message, first.text);
    const context = await options.context(message);
    for (const call of first.calls) log(`model → ${options.describeCall(call, context)}`);
    const toolResults = await tools.process(first.calls, {
      turn,
      context,
      sessionKey: message.sessionKey, // where the confirmation is asked
      requester: message.senderId, // who may answer it
    });
    const second = await model({ ...base, toolResults });
    const text = second.type === 'reply' ? second.text : '（模型又提出了工具调用；本示例每轮只执行一次。）';
    return reply(message, text);
  }

  const dispatcher = dispatchBySession(bus, async (message) => {
    const { senderId, chatId, text, kind } = message;
    seen.push({ senderId, chatId, text, kind });
    if (kind !== 'message') log(`agent: ignores a ${kind} event from ${senderId}`);
    else {
      log(`agent ← ${senderId}: ${text}`);
      await handle(message).catch(async (error: unknown) => {
        log(`agent: turn failed: ${error instanceof Error ? error.message : String(error)}`);
        await reply(message, '抱歉，处理这条消息时出错了。');
      });
    }
    handled++;
    options.onHandled?.();
  });

  return {
    get handled() {
      return handled;
    },
    seen,
    done: dispatcher.done,
  };
}
