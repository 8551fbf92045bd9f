// The turns a chat-flow host runs on a session it holds: open it, answer a reply, settle an effect.
import { type HostState, refusal } from './chat-host-sessions.js';
import { askNow, isThenable } from './chat-host-ask.js';
import { contextOf, finishTurn, openTurn, pick, Refused } from './chat-host-turn.js';
import type { ChatFlowResult } from './chat-host-types.js';
import type { StoredFlowSession } from './stored-session-types.js';

/** @internal The first turn of a started or reopened session: it asks the current step. */
export async function begin<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  session: StoredFlowSession<TStep, TContext, TData>,
  how: 'start' | 'resume',
  leased = true,
): Promise<ChatFlowResult> {
  const { events, options } = state;
  const turn = openTurn(session, leased);
  const ctx = contextOf(turn, state);
  if (events.listenerCount('opened') > 0) {
    events.emit('opened', { id: ctx.id, version: session.version, resumed: how === 'resume' });
  }
  const effect = turn.ledger.effect;
  if (how === 'resume' && effect?.state === 'running') {
    events.emit('outcome-unknown', { id: ctx.id, ...pick(effect), claimedAt: effect.claimedAt });
  }
  const answer = options.begin ? await options.begin(ctx, how) : undefined;
  const asking = answer !== false && !turn.asked ? askNow(turn, options, ctx) : undefined;
  if (asking !== undefined) await asking;
  return finishTurn(turn, state);
}

/** @internal A reply's turn: a message id seen before is a duplicate; the reply is read and submitted. */
export async function answer<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  session: StoredFlowSession<TStep, TContext, TData>,
  text: string,
  messageId: string | undefined,
): Promise<ChatFlowResult> {
  const id = session.id;
  const turn = openTurn(session);
  if (messageId !== undefined) {
    if (turn.ledger.seen.includes(messageId)) {
      state.events.emit('duplicate', { id, messageId, at: state.clock.now() });
      return refusal(state, id, 'duplicate', `message ${messageId} was processed before`);
    }
    turn.ledger = { ...turn.ledger, seen: [...turn.ledger.seen, messageId].slice(-state.maxSeen) };
  }
  const ctx = contextOf(turn, state);
  const read = state.options.read(text, ctx);
  const fields = isThenable(read) ? await read : read; // a reader without a promise is not waited for
  if (fields !== undefined) {
    // nothing after the answer writes unless `after` runs (or a callback writes: the lease is taken again)
    const { after, claims } = state.options;
    turn.lastSubmit = after === undefined && claims === undefined;
    const written = await ctx.submit(fields);
    if (!written.ok) throw new Refused(written.code, written.message, written.cause);
  }
  return finishTurn(turn, state);
}

/** @internal Settles an effect whose outcome is unknown: `done` keeps it, `not_done` clears it. */
export async function settleEffect<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  session: StoredFlowSession<TStep, TContext, TData>,
  outcome: 'done' | 'not_done',
): Promise<ChatFlowResult> {
  const turn = openTurn(session);
  const effect = turn.ledger.effect;
  if (effect?.state !== 'running') {
    return refusal(state, session.id, 'not_claimed', `no effect of ${session.id} has an unknown outcome`);
  }
  const done = { ...effect, state: 'done' as const, doneAt: state.clock.now() };
  turn.ledger = { ...turn.ledger, effect: outcome === 'done' ? done : null };
  return finishTurn(turn, state);
}
