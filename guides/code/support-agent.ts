// The agent that "Testing your agent with the fakes" tests: a model proposes either a reply or a
// `delete_posts` call; the host asks the requester to confirm in the chat, then runs it on the
// moderation platform and reports what happened. Nothing the model says deletes anything.
// #region agent
import { dispatchBySession, type MessageBus } from '@parley/bus';
import type { ConfirmGate } from '@parley/confirm';

export interface ModelRequest {
  readonly text: string;
  readonly sender: string;
}
export type ModelOutput =
  | { readonly reply: string }
  | { readonly tool: 'delete_posts'; readonly urls: readonly string[] };

/** Your model client (OpenAI, Anthropic, a local model…), reduced to what the agent needs. */
export type Model = (request: ModelRequest) => Promise<ModelOutput>;

/** The platform the posts live on; it may delete some and fail on others. */
export interface Platform {
  execute(request: { action: string; targets: readonly string[] }): Promise<{
    readonly status: 'success' | 'partial' | 'failed';
    readonly completed: readonly string[];
    readonly errors: readonly { readonly target?: string | undefined; readonly code: string }[];
  }>;
}

export function startSupportAgent(options: {
  bus: MessageBus;
  gate: ConfirmGate;
  model: Model;
  platform: Platform;
}): Promise<void> {
  const { bus, gate, model, platform } = options;
  // One message at a time per chat, chats at once: a chat waiting for its confirmation never
  // holds up another chat. `done` resolves once the bus closes and every handler has finished.
  return dispatchBySession(bus, async (message) => {
    let text: string;
    try {
      const output = await model({ text: message.text, sender: message.senderId });
      if ('reply' in output) text = output.reply;
      else {
        const action = { name: 'posts.delete', args: { urls: [...output.urls] } };
        const decision = await gate.request({
          sessionKey: message.sessionKey,
          requester: message.senderId,
          action,
          summary: `Delete ${output.urls.length} post(s): ${output.urls.join(', ')}`,
        });
        text = (await gate.authorize(decision, action)).ok
          ? describe(await platform.execute({ action: 'delete', targets: output.urls }), output.urls.length)
          : `Nothing deleted (${decision.outcome}).`;
      }
    } catch {
      text = 'Something went wrong; nothing was deleted. Please try again.';
    }
    await bus.publishOutbound({
      channel: message.channel,
      chatId: message.chatId,
      threadId: message.threadId,
      text,
    });
  }).done;
}

function describe(result: Awaited<ReturnType<Platform['execute']>>, asked: number): string {
  const failed = result.errors.map((e) => `${e.target ?? 'all'} (${e.code})`).join(', ');
  if (result.status === 'success') return `Deleted ${result.completed.length} post(s).`;
  if (result.status === 'partial')
    return `Deleted ${result.completed.length} of ${asked}; failed: ${failed}.`;
  return `Nothing deleted: ${failed}.`;
}
// #endregion agent
