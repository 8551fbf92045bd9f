import type { DeadlineHandle } from '@parley/core';
import type { RequestState } from '@parley/fsm';
import type { Protocol } from '../protocol.js';
import type { Reply } from '../request-types.js';

/**
 * What a record needs only now and then: an abort listener, or the version of its stored copy.
 * Allocated on first use, so a plain in-memory request carries one empty slot instead of four.
 */
export interface Extra {
  signal: AbortSignal | undefined;
  /** Stops watching `signal` (see `Shared.aborts`). */
  offAbort: (() => void) | undefined;
  /** The version of the stored record this instance last saw; null before the first write. */
  version: number | null;
  /** A store write of this record is in flight: watch notifications are ours, not news. */
  busy: boolean;
}

/**
 * The fields both sides track. Flat and small: times after `createdAt` are kept as offsets, which
 * fit a small integer, where an absolute epoch-ms time would cost a boxed number per field.
 */
abstract class TrackedRecord {
  state: RequestState = 'pending';
  response: unknown = undefined;
  reason: string | undefined = undefined;
  settledAt = 0;
  deadline: DeadlineHandle | undefined = undefined;
  /** ms from `createdAt` to the current deadline. */
  deadlineIn: number;
  /** ms from `createdAt` to the latest deadline progress may reach. */
  readonly maxIn: number;
  /** Whether the request waits on a person (its deadline then uses the human timeout). */
  abstract human: boolean;

  constructor(
    readonly id: string,
    readonly protocol: Protocol,
    readonly from: string,
    readonly to: string,
    /** Released (undefined) once the record is dropped from the audit ring. */
    public payload: unknown,
    readonly createdAt: number,
    deadlineAt: number,
    maxDeadlineAt: number,
  ) {
    this.deadlineIn = deadlineAt - createdAt;
    this.maxIn = maxDeadlineAt - createdAt;
  }

  get deadlineAt(): number {
    return this.createdAt + this.deadlineIn;
  }

  set deadlineAt(at: number) {
    this.deadlineIn = at - this.createdAt;
  }

  get maxDeadlineAt(): number {
    return this.createdAt + this.maxIn;
  }
}

/** A request this correlator sent (or took over from the store). */
export class Outgoing extends TrackedRecord {
  /** Settles the request's promise; a failure is passed as a rejected promise (one slot, not two). */
  resolve: ((reply: Reply | Promise<never>) => void) | undefined = undefined;
  extra: Extra | undefined = undefined;
  /** `timeoutMs` (always above 0), negated while the request waits on a person: two fields in one slot. */
  declare private timing: number;

  constructor(
    id: string,
    protocol: Protocol,
    from: string,
    to: string,
    payload: unknown,
    createdAt: number,
    deadlineAt: number,
    maxDeadlineAt: number,
    timeoutMs: number,
    human: boolean,
  ) {
    super(id, protocol, from, to, payload, createdAt, deadlineAt, maxDeadlineAt);
    this.timing = human ? -timeoutMs : timeoutMs;
  }

  /** The request's own timeout, which progress extends the deadline by. */
  get timeoutMs(): number {
    return Math.abs(this.timing);
  }

  get human(): boolean {
    return this.timing < 0;
  }

  set human(human: boolean) {
    this.timing = human ? -Math.abs(this.timing) : Math.abs(this.timing);
  }
}

/** A request this correlator received and must answer. Kept in memory only. */
export class Incoming extends TrackedRecord {
  declare human: boolean;

  constructor(
    id: string,
    protocol: Protocol,
    from: string,
    to: string,
    payload: unknown,
    createdAt: number,
    deadlineAt: number,
    maxDeadlineAt: number,
    human: boolean,
  ) {
    super(id, protocol, from, to, payload, createdAt, deadlineAt, maxDeadlineAt);
    this.human = human;
  }
}

export type AnyRecord = Outgoing | Incoming;

/** The side information of a record, created on first use. */
export function extraOf(record: Outgoing): Extra {
  record.extra ??= {
    signal: undefined,
    offAbort: undefined,
    version: null,
    busy: false,
  };
  return record.extra;
}

/**
 * Every record of one side by id: pending ones, then settled ones kept for audit and dropped after
 * `retainMs` or past `max` (oldest first). One map holds both, so a request costs one insertion
 * when it starts and one deletion when its record is dropped, and any id is found with one lookup;
 * a ring keeps the settle order, so dropping the oldest never scans. A dropped record also lets go
 * of its payload and response: a map table V8 has replaced may still point at it until the next
 * full collection, and what it points at would survive every young-generation collection until then.
 */
export class Tracker<T extends AnyRecord> {
  private readonly byId = new Map<string, T>();
  private readonly ring: (T | undefined)[];
  private head = 0;
  private count = 0;
  private pendingCount = 0;

  constructor(
    private readonly retainMs: number,
    max: number,
  ) {
    this.ring = new Array<T | undefined>(retainMs === 0 ? 0 : max);
  }

  get pending(): number {
    return this.pendingCount;
  }

  get settledCount(): number {
    return this.count;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  addPending(record: T): void {
    this.byId.set(record.id, record);
    this.pendingCount++;
  }

  /** Forgets a pending record that never settled here (its start failed). */
  dropPending(record: T): void {
    if (this.byId.get(record.id) !== record) return;
    this.byId.delete(record.id);
    this.pendingCount--;
  }

  /** Moves a pending record (already in a final state) to the audit ring. */
  settle(record: T): void {
    this.pendingCount--;
    this.keep(record);
  }

  /** Keeps a settled record read from elsewhere (a store) for audit. */
  retain(record: T): void {
    this.byId.set(record.id, record);
    this.keep(record);
  }

  /** Pending records, in the order they started. */
  *pendingRecords(): IterableIterator<T> {
    for (const record of this.byId.values()) if (record.state === 'pending') yield record;
  }

  /** Settled records, in the order they settled. */
  *settledRecords(): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) yield this.ring[(this.head + i) % this.ring.length] as T;
  }

  /** Drops what is due; returns when the next record is due, or undefined when none is left. */
  sweep(now: number): number | undefined {
    while (this.count > 0) {
      const dueAt = (this.ring[this.head] as T).settledAt + this.retainMs;
      if (dueAt > now) return dueAt;
      this.dropOldest();
    }
    return undefined;
  }

  clear(): void {
    this.byId.clear();
    this.ring.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.pendingCount = 0;
  }

  private keep(record: T): void {
    const ring = this.ring;
    if (ring.length === 0) {
      this.forget(record);
      return;
    }
    if (this.count === ring.length) this.dropOldest();
    let slot = this.head + this.count;
    if (slot >= ring.length) slot -= ring.length;
    ring[slot] = record;
    this.count++;
  }

  private dropOldest(): void {
    const oldest = this.ring[this.head] as T;
    this.ring[this.head] = undefined;
    this.head = this.head + 1 === this.ring.length ? 0 : this.head + 1;
    this.count--;
    this.forget(oldest);
  }

  private forget(record: T): void {
    if (this.byId.get(record.id) === record) this.byId.delete(record.id);
    record.payload = undefined;
    record.response = undefined;
  }
}
