// The turns a chat-flow host runs on a session it holds: open it, answer a reply, settle an effect.
import { type HostState, held, refusal } from './chat-host-sessions.js';
import { askNow, isThenable } from './chat-host-ask.js';
import { finishTurn, leaseAgain, openTurn, pick, Refused, type Turn } from './chat-host-turn.js';
import { contextOf, submitTurn } from './chat-host-ways.js';
import type { ChatContext, ChatFlowResult } from './chat-host-types.js';
import type { StoredFlowSession } from './stored-session-types.js';

/**
 * @internal The first turn of a started or reopened session: it asks the current step. Without a
 * `begin` callback and with an `ask` that returns no promise, it ends at once (no promise).
 */
export function begin<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  session: StoredFlowSession<TStep, TContext, TData>,
  how: 'start' | 'resume',
  leased = true,
): ChatFlowResult | Promise<ChatFlowResult> {
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
  if (options.begin !== undefined) return beginWith(state, turn, ctx, options.begin(ctx, how));
  return askFirst(state, turn, ctx);
}

/** The first turn once the host's `begin` answered: `false` asks nothing. */
async function beginWith<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  turn: Turn<TStep, TContext, TData>,
  ctx: ChatContext<TStep, TContext, TData>,
  begun: unknown,
): Promise<ChatFlowResult> {
  if ((await begun) === false) return finishTurn(turn, state);
  return askFirst(state, turn, ctx);
}

/** Asks the current step unless the turn asked already, then ends the turn. */
function askFirst<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  turn: Turn<TStep, TContext, TData>,
  ctx: ChatContext<TStep, TContext, TData>,
): ChatFlowResult | Promise<ChatFlowResult> {
  const asking = turn.asked ? undefined : askNow(turn, state.options, ctx);
  return asking === undefined ? finishTurn(turn, state) : asking.then(() => finishTurn(turn, state));
}

/**
 * @internal A reply's turn, with no lease taken up front when nothing with effects runs in it (no
 * `after`, no `claims`): the answer is decided on the record the handle holds and written by one
 * compare-and-set at its version, which fails when anyone wrote since (or holds the lease); a
 * `read` that returns a promise or a callback that writes takes the lease first. An answer that
 * lost the race wrote nothing and is read again on the committed record under the lease.
 */
export function reply<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  session: StoredFlowSession<TStep, TContext, TData>,
  text: string,
  messageId: string | undefined,
): Promise<ChatFlowResult> {
  const { after, claims } = state.options;
  if (after !== undefined || claims !== undefined || session.stale) {
    return held(state, session, () => answer(state, openTurn(session), text, messageId));
  }
  const turn = openTurn(session, false);
  turn.free = true;
  // no async frame: the turn's promise is followed, and the lease a callback took is given back
  return answer(state, turn, text, messageId).then(
    (result) => (turn.leased ? session.release().then(() => result) : result),
    (error: unknown) => {
      const again = (): Promise<ChatFlowResult> => {
        if (!(error instanceof Refused) || !turn.raced) throw error;
        // another writer moved the record: nothing was written, so the reply is read again on it
        return held(state, session, () => answer(state, openTurn(session), text, messageId));
      };
      return turn.leased ? session.release().then(again) : again();
    },
  );
}

/** A reply's turn: a message id seen before is a duplicate; the reply is read and submitted. */
function answer<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  turn: Turn<TStep, TContext, TData>,
  text: string,
  messageId: string | undefined,
): Promise<ChatFlowResult> {
  const id = turn.session.id;
  if (messageId !== undefined) {
    if (turn.ledger.seen.includes(messageId)) {
      state.events.emit('duplicate', { id, messageId, at: state.clock.now() });
      return Promise.resolve(refusal(state, id, 'duplicate', `message ${messageId} was processed before`));
    }
    const { seen } = turn.ledger; // one new array: the oldest id drops out past maxSeen
    const kept =
      seen.length < state.maxSeen
        ? seen.concat(messageId)
        : [...seen.slice(seen.length - state.maxSeen + 1), messageId];
    turn.ledger = { ...turn.ledger, seen: kept };
  }
  const ctx = contextOf(turn, state);
  const read = state.options.read(text, ctx);
  // a reader without a promise is not waited for; one with a promise runs under the lease
  if (isThenable(read))
    return leasedRead(state, turn, read).then((fields) => answered(state, turn, ctx, fields));
  return answered(state, turn, ctx, read);
}

/** Submits what the reply was read as (nothing when `read` gave nothing), then ends the turn. */
function answered<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  turn: Turn<TStep, TContext, TData>,
  ctx: ChatContext<TStep, TContext, TData>,
  fields: unknown,
): Promise<ChatFlowResult> {
  if (fields === undefined) return Promise.resolve(finishTurn(turn, state));
  // nothing after the answer writes unless `after` runs (or a callback writes: the lease is taken again)
  const { after, claims } = state.options;
  turn.lastSubmit = after === undefined && claims === undefined;
  return submitTurn(turn, state, ctx, fields, (written) => {
    if (!written.ok) throw new Refused(written.code, written.message, written.cause);
    return finishTurn(turn, state);
  });
}

/**
 * Waits for a `read` that returned a promise, holding the lease meanwhile: taken now, on the record
 * the turn decided on, unless the turn holds it already. When it cannot be taken, the read is still
 * waited for (its result dropped) before the turn ends.
 */
async function leasedRead<TStep extends string, TContext, TData>(
  state: HostState<TStep, TContext, TData>,
  turn: Turn<TStep, TContext, TData>,
  read: PromiseLike<unknown>,
): Promise<unknown> {
  if (turn.leased) return read;
  turn.free = false;
  const reading = Promise.resolve(read);
  reading.catch(ignore); // waited for below either way
  try {
    await leaseAgain(turn, state);
  } catch (error) {
    await reading.catch(ignore); // the lease was not taken (`raced` says whether to decide again)
    throw error;
  }
  return reading;
}

const ignore = (): undefined => undefined;

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
