import type { Clock, DeadlineQueue, Emitter } from '@parley/core';
import type { CorrelateError } from '../errors.js';
import type { CorrelateMessage } from '../messages.js';
import type { Protocol } from '../protocol.js';
import type { CorrelateRefusal } from '../receive-result.js';
import type { CorrelatorEvents } from '../types.js';
import type { AbortWatch } from './signals.js';

/** What the requester and responder sides of one correlator share. */
export interface Shared {
  readonly self: string;
  readonly clock: Clock;
  /** Every deadline of both sides and the retention sweep, on one clock timer. */
  readonly queue: DeadlineQueue;
  readonly events: Emitter<CorrelatorEvents>;
  readonly protocols: ReadonlyMap<string, Protocol>;
  readonly maxPending: number;
  readonly maxTotalMs: number;
  readonly retainMs: number;
  readonly maxSettled: number;
  readonly send: (message: CorrelateMessage) => void;
  /** Counts a refusal, tells `refused` listeners and returns it. */
  readonly refuse: (refusal: Omit<CorrelateRefusal, 'ok'>) => CorrelateRefusal;
  /** Makes sure a retention sweep runs by `dueAt`. */
  readonly scheduleSweep: (dueAt: number) => void;
  readonly isClosed: () => boolean;
  /** One `abort` listener per signal for every request and wait of this correlator. */
  readonly aborts: AbortWatch;
  readonly closedError: () => CorrelateError;
}
