// Asking a chat-flow session's question, and waiting only for a callback that returned a promise.
import type { ChatContext, ChatFlowHostOptions } from './chat-host-types.js';
import type { StoredFlowSession } from './stored-session-types.js';

/** @internal What asking needs of a turn: its session, and whether it asked already. */
export interface Asking<TStep extends string, TContext, TData> {
  readonly session: StoredFlowSession<TStep, TContext, TData>;
  asked: boolean;
}

/**
 * @internal Asks the session's current question through the host's `ask`: a promise only when
 * `ask` returned one (nothing to wait for otherwise).
 */
export function askNow<TStep extends string, TContext, TData>(
  turn: Asking<TStep, TContext, TData>,
  options: ChatFlowHostOptions<TStep, TContext, TData>,
  ctx: ChatContext<TStep, TContext, TData>,
): Promise<void> | undefined {
  turn.asked = true;
  const prompt = turn.session.prompt;
  if (prompt === undefined || options.ask === undefined) return undefined;
  const asked = options.ask(prompt, ctx);
  return isThenable(asked) ? Promise.resolve(asked) : undefined;
}

/** @internal Whether a callback's return is something to wait for. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
