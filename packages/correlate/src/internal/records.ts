import type { DeadlineHandle } from '@parley/core';
import type { RequestState } from '@parley/fsm';
import type { Protocol } from '../protocol.js';
import type { Reply, TrackedRequest } from '../types.js';

/**
 * What a record needs only now and then: an abort listener, or the version of its stored copy.
 * Allocated on first use, so a plain in-memory request carries one empty slot instead of four.
 */
export interface Extra {
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
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
  /** Settled and no longer kept for audit: lookups by id pass over it. */
  dropped = false;
  /** ms from `createdAt` to the current deadline. */
  deadlineIn: number;
  /** ms from `createdAt` to the latest deadline progress may reach. */
  readonly maxIn: number;

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
    public human: boolean,
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

  constructor(
    id: string,
    protocol: Protocol,
    from: string,
    to: string,
    payload: unknown,
    createdAt: number,
    deadlineAt: number,
    maxDeadlineAt: number,
    readonly timeoutMs: number,
    human: boolean,
  ) {
    super(id, protocol, from, to, payload, createdAt, deadlineAt, maxDeadlineAt, human);
  }
}

/** A request this correlator received and must answer. Kept in memory only. */
export class Incoming extends TrackedRecord {}

export type AnyRecord = Outgoing | Incoming;

/** The side information of a record, created on first use. */
export function extraOf(record: Outgoing): Extra {
  record.extra ??= { signal: undefined, onAbort: undefined, version: null, busy: false };
  return record.extra;
}

export function toTracked(record: AnyRecord): TrackedRequest {
  const tracked: { -readonly [K in keyof TrackedRequest]: TrackedRequest[K] } = {
    id: record.id,
    protocol: record.protocol.name,
    role: record instanceof Outgoing ? 'requester' : 'responder',
    from: record.from,
    to: record.to,
    state: record.state,
    payload: record.payload,
    createdAt: record.createdAt,
    deadlineAt: record.deadlineAt,
    maxDeadlineAt: record.maxDeadlineAt,
    waitingOnHuman: record.human,
  };
  if (record.response !== undefined) tracked.response = record.response;
  if (record.reason !== undefined) tracked.reason = record.reason;
  if (record.state !== 'pending') tracked.settledAt = record.settledAt;
  return tracked;
}

export function toReply(record: Outgoing): Reply {
  return {
    requestId: record.id,
    protocol: record.protocol.name,
    state: record.state === 'approved' ? 'approved' : 'rejected',
    approved: record.state === 'approved',
    response: record.response,
    reason: record.reason,
    from: record.to,
    settledAt: record.settledAt,
  };
}

/**
 * Settled records are found by id through this many generations of maps. More generations keep
 * fewer dropped records reachable (at most `max / (GENERATIONS - 1)`), at the price of a few more
 * map lookups for an id that is not there.
 */
const GENERATIONS = 4;

/**
 * Every record of one side by id: pending ones, then settled ones kept for audit and dropped after
 * `retainMs` or past `max` (oldest first). A ring keeps the settle order, so dropping the oldest
 * never scans. Settled records are found by id through generations of maps that are never deleted
 * from: a dropped record is only flagged (and lets go of its payload and response), and the oldest
 * generation goes as a whole once the newest is full (all of its records have left the ring by
 * then). Deleting from a large map at the rate requests settle makes V8 rehash it again and again,
 * and the discarded tables keep young records alive into the old generation: that cost more than
 * the rest of a round trip. Every record still reachable survives each young-generation collection,
 * so how few dropped records stay reachable matters as much as how many are kept on purpose.
 */
export class Tracker<T extends AnyRecord> {
  private readonly pendingById = new Map<string, T>();
  /** Settled records by id, newest generation first. */
  private readonly generations: Map<string, T>[] = [];
  private readonly generationSize: number;
  private readonly ring: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(
    private readonly retainMs: number,
    max: number,
  ) {
    this.ring = new Array<T | undefined>(retainMs === 0 ? 0 : max);
    this.generationSize = Math.max(1, Math.ceil(max / (GENERATIONS - 1)));
    for (let i = 0; i < GENERATIONS; i++) this.generations.push(new Map());
  }

  get pending(): number {
    return this.pendingById.size;
  }

  get settledCount(): number {
    return this.count;
  }

  get(id: string): T | undefined {
    let record = this.pendingById.get(id);
    if (record !== undefined) return record;
    for (const generation of this.generations) {
      record = generation.get(id);
      if (record !== undefined) return record.dropped ? undefined : record;
    }
    return undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  addPending(record: T): void {
    this.pendingById.set(record.id, record);
  }

  /** Forgets a pending record that never settled here (its start failed). */
  dropPending(record: T): void {
    this.pendingById.delete(record.id);
  }

  /** Moves a pending record (already in a final state) to the audit ring. */
  settle(record: T): void {
    this.pendingById.delete(record.id);
    this.retain(record);
  }

  /** Keeps a settled record for audit, or forgets it at once when nothing is retained. */
  retain(record: T): void {
    const ring = this.ring;
    if (ring.length === 0) {
      record.dropped = true;
      return;
    }
    if (this.count === ring.length) this.dropOldest();
    let slot = this.head + this.count;
    if (slot >= ring.length) slot -= ring.length;
    ring[slot] = record;
    this.count++;
    const generations = this.generations;
    if ((generations[0] as Map<string, T>).size >= this.generationSize) {
      generations.pop();
      generations.unshift(new Map());
    }
    (generations[0] as Map<string, T>).set(record.id, record);
  }

  /** Pending records, in the order they started. */
  pendingRecords(): IterableIterator<T> {
    return this.pendingById.values();
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
    this.pendingById.clear();
    for (let i = 0; i < GENERATIONS; i++) this.generations[i] = new Map();
    this.ring.fill(undefined);
    this.head = 0;
    this.count = 0;
  }

  private dropOldest(): void {
    const oldest = this.ring[this.head] as T;
    this.ring[this.head] = undefined;
    this.head = this.head + 1 === this.ring.length ? 0 : this.head + 1;
    this.count--;
    // Unreachable through the tracker from now on; its map generation may still hold it a while.
    oldest.dropped = true;
    oldest.payload = undefined;
    oldest.response = undefined;
  }
}
