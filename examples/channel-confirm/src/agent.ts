// One turn of the agent, as a host writes it: ask the model, hand its tool calls to the tool gate
// (which may wait for a confirmation in the chat), ask the model again with the results, reply in
// the same chat. The loop over the bus is @parley/bus's `dispatchBySession`: one turn at a time per
// chat, chats side by side. Replies to a confirmation prompt never arrive here: the confirm gate
// consumes them on the bus.
import { dispatchBySession, type InboundMessage, type MessageBus } from '@parley/bus';
import { type ToolCallProposal, type ToolGate, toOpenAITools } from '@parley/tools';
import type { ModelOutput, ModelRequest } from './script.js';
import { type AgentContext, dataModify } from './tool.js';

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
  readonly onHandled: () => void;
}

export interface Agent {
  /** Every message the agent read, in order; `handled` of them are fully handled. */
  readonly seen: readonly InboundMessage[];
  readonly handled: number;
  /** Resolves when the bus closed and every taken message was handled. */
  readonly done: Promise<void>;
}

export function startAgent(options: AgentOptions): Agent {
  const { bus, model, tools, log } = options;
  const offered = toOpenAITools([dataModify]);
  const seen: InboundMessage[] = [];
  let handled = 0;
  let turn = 0;
  const reply = async ({ channel, chatId, threadId, eventId }: InboundMessage, text: string) => {
    const result = await bus.publishOutbound({ channel, chatId, threadId, text, replyTo: eventId });
    if (result.status === 'rejected') log(`agent: reply not delivered (${result.code})`);
  };
  async function handle(message: InboundMessage): Promise<void> {
    const base = { turn: ++turn, from: message.senderId, text: message.text, tools: offered };
    const first = await model(base);
    if (first.type === 'reply') return reply(message, first.text);
    const context = await options.context(message);
    for (const call of first.calls) log(`model → ${options.describeCall(call, context)}`);
    // sessionKey: where a confirmation is asked; requester: who may answer it.
    const { sessionKey, senderId: requester } = message;
    const toolResults = await tools.process(first.calls, { turn, context, sessionKey, requester });
    const second = await model({ ...base, toolResults });
    return reply(
      message,
      second.type === 'reply' ? second.text : '（模型又提出了工具调用；本示例每轮只执行一次。）',
    );
  }
  const dispatcher = dispatchBySession(bus, async (message) => {
    seen.push(message);
    if (message.kind !== 'message') log(`agent: ignores a ${message.kind} event from ${message.senderId}`);
    else {
      log(`agent ← ${message.senderId}: ${message.text}`);
      await handle(message).catch(async (error: unknown) => {
        log(`agent: turn failed: ${error instanceof Error ? error.message : String(error)}`);
        await reply(message, '抱歉，处理这条消息时出错了。');
      });
    }
    handled++;
    options.onHandled();
  });
  return {
    seen,
    get handled() {
      return handled;
    },
    done: dispatcher.done,
  };
}
