import type { Clock, Emitter, Store } from '@parley/core';
import type { RequestEvent, RequestState } from '@parley/fsm';
import type { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { CorrelatorEvents } from '../types.js';
import type { Outgoing, Tracker } from './records.js';

/** What the durable side needs from the requester side. */
export interface DurableHost {
  readonly store: Store;
  readonly prefix: string;
  /** Who this correlator is: every record under its prefix must name it as the requester. */
  readonly self: string;
  readonly clock: Clock;
  readonly events: Emitter<CorrelatorEvents>;
  readonly protocols: ReadonlyMap<string, Protocol>;
  readonly tracker: Tracker<Outgoing>;
  readonly storeRetainMs: number;
  readonly isClosed: () => boolean;
  /** Arms the record's deadline (at its `deadlineAt`, or at `at`). */
  arm(record: Outgoing, at?: number): void;
  /** Sends a stored request and arms it. */
  launch(record: Outgoing): void;
  /** Takes a record read from the store into memory. */
  adopt(record: Outgoing): Outgoing;
  /** Moves a pending record to its final state in memory and tells everyone. */
  finish(
    record: Outgoing,
    to: RequestState,
    response: unknown,
    reason: string | undefined,
    error: CorrelateError | undefined,
    settledAt: number,
    remote: boolean,
  ): void;
}

export interface Durable {
  persistThenLaunch(record: Outgoing): Promise<void>;
  /**
   * Settles a record by compare-and-set; resolves true when `event` itself settled it (false when
   * it was already final, the deadline turned it into an expiry, or the write failed).
   */
  commit(
    record: Outgoing,
    event: RequestEvent,
    response: unknown,
    reason: string | undefined,
    error: CorrelateError | undefined,
  ): Promise<boolean>;
  /** Writes a deadline moved by progress; false when another instance changed the record first. */
  extend(record: Outgoing, deadlineAt: number, human: boolean): Promise<boolean>;
  load(id: string): Promise<Outgoing | undefined>;
  restore(): Promise<number>;
  unwatch(): void;
}
