// The sessions a chat-flow host holds open: one task at a time per session, the least recently used
// closed past `maxSessions`, and each turn run under the session's lease.
import type { ChurnMap } from '@parley/core';
import type { OpenSessions } from './chat-host-open.js';
import { Refused, type TurnHost } from './chat-host-turn.js';
import type { ChatFlowRefusalCode, ChatFlowResult } from './chat-host-types.js';
import type { FlowSessionStore, StoredFlowSession } from './stored-session-types.js';

/** @internal What one host holds: its settings, the open sessions and the task chains. */
export interface HostState<TStep extends string, TContext, TData> extends TurnHost<TStep, TContext, TData> {
  readonly sessions: FlowSessionStore<TStep, TContext, TData>;
  readonly maxSessions: number;
  readonly maxSeen: number;
  readonly turnLeaseMs: number;
  /** In use order: the first is the least recently used. */
  readonly open: OpenSessions<StoredFlowSession<TStep, TContext, TData>>;
  /** The last task of each session with one running, or `DONE` for an open session with none. */
  readonly chains: ChurnMap<string, Promise<unknown>>;
  /** Whether a task of session `id` is running or waiting. */
  readonly busy: (id: string) => boolean;
  closed: boolean;
}

type State<TStep extends string, TContext, TData> = HostState<TStep, TContext, TData>;
type Session<TStep extends string, TContext, TData> = StoredFlowSession<TStep, TContext, TData>;

/** @internal A refusal of session `id`, reported as a `refused` event. */
export function refusal<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  id: string,
  code: ChatFlowRefusalCode,
  message: string,
  cause?: unknown,
): ChatFlowResult {
  state.events.emit('refused', { id, code, message, reason: message, at: state.clock.now() });
  return { ok: false, id, code, message, reason: message, ...(cause === undefined ? {} : { cause }) };
}

/**
 * @internal Runs `task` after every earlier task of session `id`; a throw or refusal becomes the
 * result. No async frame: a task that answers at once is answered as it is, a promise is followed.
 */
export function serialize<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  id: string,
  task: () => ChatFlowResult | Promise<ChatFlowResult>,
): Promise<ChatFlowResult> {
  const { chains } = state;
  const over = (result: ChatFlowResult): ChatFlowResult => {
    // the last task of the session is over: an open session keeps its entry, idle (no Map emptied
    // and filled again per task), until it is closed
    if (chains.get(id) === run) {
      if (state.open.get(id) === undefined) chains.delete(id);
      else chains.set(id, DONE);
    }
    return result;
  };
  const failed = (error: unknown): ChatFlowResult => over(failure(state, id, error));
  const run: Promise<ChatFlowResult> = (chains.get(id) ?? DONE).then(() => {
    if (state.closed) return over(refusal(state, id, 'closed', 'the chat-flow host was closed'));
    let answer: ChatFlowResult | Promise<ChatFlowResult>;
    try {
      answer = task();
    } catch (error) {
      return failed(error);
    }
    return answer instanceof Promise ? answer.then(over, failed) : over(answer);
  });
  chains.set(id, run);
  return run;
}

/** A task's throw as its result: a refusal thrown as such, anything else `callback_failed`. */
function failure<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  id: string,
  error: unknown,
): ChatFlowResult {
  if (error instanceof Refused) return refusal(state, id, error.code, error.message, error.original);
  const reason = error instanceof Error ? error.message : String(error);
  return refusal(state, id, 'callback_failed', `a callback failed: ${reason}`, error);
}

/** @internal The chain of a session with no task left. */
export const DONE: Promise<unknown> = Promise.resolve();

/** @internal Holds `session` open, closing the least recently used idle one past `maxSessions`. */
export function remember<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  session: Session<TStep, TContext, TData>,
): void {
  const { open, maxSessions } = state;
  if (open.size >= maxSessions) {
    const idle = open.oldest(state.busy); // the least recently used session without a turn running
    if (idle === undefined) {
      session.close();
      throw new Refused('too_many_sessions', `${maxSessions} sessions are open and busy`);
    }
    forget(state, idle);
  }
  open.add(session);
  state.options.attach?.(session);
}

/** @internal Closes `session` when it is the one held open. */
export function forget<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  session: Session<TStep, TContext, TData> | undefined,
): void {
  if (session === undefined || !state.open.delete(session)) return;
  if (state.chains.get(session.id) === DONE) state.chains.delete(session.id); // no task of it is left
  session.close();
}

/** @internal The open session `id` (at once, now the most recently used), or the stored one resumed. */
export function load<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  id: string,
): Session<TStep, TContext, TData> | Promise<Session<TStep, TContext, TData>> {
  return state.open.use(id) ?? resume(state, id);
}

/** Resumes the stored session `id` and holds it open. */
async function resume<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  id: string,
): Promise<Session<TStep, TContext, TData>> {
  const resumed = await state.sessions.resume(id);
  if (!resumed.ok) throw new Refused(resumed.code, resumed.message, resumed.cause);
  remember(state, resumed.session);
  return resumed.session;
}

/**
 * @internal Runs one turn on `session` under its lease: the handle first reads the committed record
 * (never what an earlier turn left in it), every write of the turn is fenced, and the lease is given back.
 */
export async function held<TStep extends string, TContext, TData>(
  state: State<TStep, TContext, TData>,
  session: Session<TStep, TContext, TData>,
  run: () => ChatFlowResult | Promise<ChatFlowResult>,
): Promise<ChatFlowResult> {
  const taken = await session.acquire({ ttlMs: state.turnLeaseMs });
  if (!taken.ok) {
    forget(state, session);
    throw new Refused(taken.code, taken.message, taken.cause);
  }
  let result: ChatFlowResult;
  try {
    result = await run();
  } finally {
    await session.release();
  }
  // the version as the turn left the record (a lease given back at the end moves it)
  return result.ok && result.version !== session.version ? { ...result, version: session.version } : result;
}
