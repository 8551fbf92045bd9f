import type { Clock, Emitter } from '@parley/core';
import type {
  ChatEffectClaim,
  ChatFlowHostEvents,
  ChatFlowHostOptions,
  ChatFlowLedger,
  ChatFlowRefusalCode,
  ChatFlowResult,
} from './chat-host-types.js';
import { isRecord } from './internal/record.js';
import type { TurnWays } from './chat-host-context.js';
import type { StoredFlowSession } from './stored-session-types.js';

const EMPTY: ChatFlowLedger = { seen: [], effect: null };

/** @internal A refusal thrown out of a callback's write so the whole turn ends with it. */
export class Refused extends Error {
  constructor(
    readonly code: ChatFlowRefusalCode,
    reason: string,
    readonly original?: unknown,
  ) {
    super(reason);
  }
}

/** @internal What one turn (start, open, reply) of one session holds until it ends. */
export interface Turn<TStep extends string, TContext, TData> {
  readonly session: StoredFlowSession<TStep, TContext, TData>;
  /** The host's data once `split`; until then the record's data, ledger included (a write replaces it). */
  data: TData;
  split: boolean;
  /** The ledger as the next write will store it, and as the last write stored it. */
  ledger: ChatFlowLedger;
  written: ChatFlowLedger;
  /** `setData` was called since the last write. */
  dirty: boolean;
  asked: boolean;
  /** An effect that ran and is marked done by the next write. */
  done: ChatEffectClaim | undefined;
  /** Claimed by the write that completed its step and not run yet. */
  claimed: ChatEffectClaim | undefined;
  /** The turn holds the session's lease now (given back by its last write, taken again for a later one). */
  leased: boolean;
  /** The next submit is the turn's last known write: it gives the lease back. */
  lastSubmit: boolean;
  /**
   * The turn holds no lease and ran nothing with effects: its last submit is written by one
   * compare-and-set at the version the handle holds, with no lease (the compare-and-set fences it).
   */
  free: boolean;
  /** A write of the turn lost to another writer's before the turn wrote anything. */
  raced: boolean;
  /** The turn wrote something. */
  wrote: boolean;
  /** The lease being taken for the turn, while it is. */
  leasing: Promise<void> | undefined;
}

/** @internal What a turn needs from its host. */
export interface TurnHost<TStep extends string, TContext, TData> {
  readonly options: ChatFlowHostOptions<TStep, TContext, TData>;
  readonly clock: Clock;
  readonly events: Emitter<ChatFlowHostEvents>;
  readonly turnLeaseMs: number;
  /** The ways of writing its turns' contexts use, made on the first turn. */
  ways?: TurnWays<TStep, TContext, TData, Turn<TStep, TContext, TData>>;
}

/** @internal Starts a turn on a handle: the host's data and its ledger, split. */
export function openTurn<TStep extends string, TContext, TData>(
  session: StoredFlowSession<TStep, TContext, TData>,
  leased = true,
): Turn<TStep, TContext, TData> {
  const data = session.data;
  let ledger = EMPTY;
  const chatFlow = isRecord(data) ? data.chatFlow : undefined;
  // the ledger is this module's own JSON, written only by `stored` below
  if (isRecord(chatFlow) && Array.isArray(chatFlow.seen)) ledger = chatFlow as unknown as ChatFlowLedger;
  return {
    session,
    data,
    split: false,
    ledger,
    written: ledger,
    leased,
    asked: false,
    dirty: false,
    done: undefined,
    claimed: undefined,
    lastSubmit: false,
    free: false,
    raced: false,
    wrote: false,
    leasing: undefined,
  };
}

/** @internal The record's data of a turn: the host's data (the record's, `chatFlow` written over, until split) and the ledger. */
export const stored = <TData>(turn: { data: TData; ledger: ChatFlowLedger }): TData =>
  ({ ...turn.data, chatFlow: turn.ledger }) as TData; // the host's data is a JSON object

/** @internal The names of a claim, for events. */
export const pick = (claim: ChatEffectClaim): { name: string; step: string; part: number } => ({
  name: claim.name,
  step: claim.step,
  part: claim.part,
});

/**
 * @internal Takes the lease again for a write after the one that gave it back (or for a turn that
 * began without it), only on the record that write left: another writer's change since refuses the
 * turn `conflict`. One taking at a time per turn: a second caller waits for the one under way.
 */
export function leaseAgain<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
): Promise<void> {
  turn.free = false; // a turn that takes the lease writes under it from now on
  turn.leasing ??= takeLease(turn, host);
  return turn.leasing;
}

async function takeLease<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
): Promise<void> {
  try {
    const taken = await turn.session.acquire({ ttlMs: host.turnLeaseMs, current: true });
    if (!taken.ok) {
      // a turn that wrote nothing yet found the record moved: it may be decided again on it
      turn.raced = taken.code === 'conflict' && !turn.wrote;
      throw new Refused(taken.code, taken.message, taken.cause);
    }
    turn.leased = true;
  } finally {
    turn.leasing = undefined;
  }
}

/** @internal Writes the turn's data and ledger; `release` gives the lease back in the same write. */
export async function saveTurn<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
  release = false,
) {
  if (!turn.leased) await leaseAgain(turn, host);
  const saved = await turn.session.update(stored(turn), { release });
  if (saved.ok) committed(turn, host, release);
  return saved;
}

/** @internal After a write: what the turn holds is what is stored, and an effect it marked done is reported. */
export function committed<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
  released: boolean,
): void {
  if (released) turn.leased = false;
  turn.wrote = true;
  turn.written = turn.ledger;
  turn.dirty = false;
  const done = turn.done;
  turn.done = undefined;
  if (done !== undefined)
    host.events.emit('effect-done', { id: turn.session.id, ...pick(done), at: host.clock.now() });
}

/**
 * @internal Ends a turn: writes what is still unwritten (data, ledger, an effect done) and reports;
 * without a write, at once (no promise).
 */
export function finishTurn<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
): ChatFlowResult | Promise<ChatFlowResult> {
  if (turn.dirty || turn.ledger !== turn.written || turn.done !== undefined) return saveLast(turn, host);
  return ended(turn.session);
}

/** The turn's last write, which gives the lease back. */
async function saveLast<TStep extends string, TContext, TData>(
  turn: Turn<TStep, TContext, TData>,
  host: TurnHost<TStep, TContext, TData>,
): Promise<ChatFlowResult> {
  const saved = await saveTurn(turn, host, true);
  if (!saved.ok) throw new Refused(saved.code, saved.message, saved.cause);
  return ended(turn.session);
}

const ended = (session: { readonly id: string; readonly step: string; readonly version: number }) =>
  ({ ok: true, id: session.id, step: session.step, version: session.version }) as const;
