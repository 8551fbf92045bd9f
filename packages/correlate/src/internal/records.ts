import type { DeadlineHandle, JsonValue } from '@parley/core';
import type { RequestState } from '@parley/fsm';
import { z } from 'zod';
import type { Protocol } from '../protocol.js';
import type { Reply, TrackedRequest } from '../types.js';

/** A request this correlator sent (or took over from the store). A class: fixed shape, small. */
export class Outgoing {
  state: RequestState = 'pending';
  response: unknown = undefined;
  reason: string | undefined = undefined;
  settledAt = 0;
  resolve: ((reply: Reply) => void) | undefined = undefined;
  reject: ((error: unknown) => void) | undefined = undefined;
  deadline: DeadlineHandle | undefined = undefined;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;
  /** The version of the stored record this instance last saw; null before the first write. */
  version: number | null = null;
  /** A store write of this record is in flight: watch notifications are ours, not news. */
  busy = false;

  constructor(
    readonly id: string,
    readonly protocol: Protocol,
    readonly from: string,
    readonly to: string,
    readonly payload: unknown,
    readonly createdAt: number,
    public deadlineAt: number,
    readonly maxDeadlineAt: number,
    readonly timeoutMs: number,
    public human: boolean,
  ) {}
}

/** A request this correlator received and must answer. Kept in memory only. */
export class Incoming {
  state: RequestState = 'pending';
  response: unknown = undefined;
  reason: string | undefined = undefined;
  settledAt = 0;
  deadline: DeadlineHandle | undefined = undefined;
  human = false;

  constructor(
    readonly id: string,
    readonly protocol: Protocol,
    readonly from: string,
    readonly to: string,
    readonly payload: unknown,
    readonly createdAt: number,
    public deadlineAt: number,
    readonly maxDeadlineAt: number,
  ) {}
}

export type AnyRecord = Outgoing | Incoming;

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

const STATES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;

/** The persisted form of an outgoing request: plain JSON with absolute times. */
const StoredRequest = z.object({
  v: z.literal(1),
  id: z.string(),
  protocol: z.string(),
  from: z.string(),
  to: z.string(),
  state: z.enum(STATES),
  payload: z.unknown(),
  response: z.unknown().optional(),
  reason: z.string().optional(),
  createdAt: z.number(),
  deadlineAt: z.number(),
  maxDeadlineAt: z.number(),
  timeoutMs: z.number(),
  human: z.boolean(),
  settledAt: z.number().optional(),
});
export type StoredRequest = z.infer<typeof StoredRequest>;

export function encode(record: Outgoing, patch: Partial<StoredRequest> = {}): JsonValue {
  const stored: StoredRequest = {
    v: 1,
    id: record.id,
    protocol: record.protocol.name,
    from: record.from,
    to: record.to,
    state: record.state,
    payload: record.payload,
    createdAt: record.createdAt,
    deadlineAt: record.deadlineAt,
    maxDeadlineAt: record.maxDeadlineAt,
    timeoutMs: record.timeoutMs,
    human: record.human,
    ...patch,
  };
  return stored as JsonValue; // payloads and responses passed their schemas; the store checks JSON
}

export function decode(value: unknown): StoredRequest | undefined {
  const parsed = StoredRequest.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function fromStored(stored: StoredRequest, protocol: Protocol, version: number): Outgoing {
  const record = new Outgoing(
    stored.id,
    protocol,
    stored.from,
    stored.to,
    stored.payload,
    stored.createdAt,
    stored.deadlineAt,
    stored.maxDeadlineAt,
    stored.timeoutMs,
    stored.human,
  );
  record.version = version;
  applyStored(record, stored);
  return record;
}

/** Copies what another instance may have changed into a local record. */
export function applyStored(record: Outgoing, stored: StoredRequest): void {
  record.state = stored.state;
  record.response = stored.response;
  record.reason = stored.reason;
  record.settledAt = stored.settledAt ?? 0;
  record.deadlineAt = stored.deadlineAt;
  record.human = stored.human;
}

/**
 * Settled records kept for audit, dropped after `retainMs` or past `max` (oldest first). A ring
 * keeps the settle order, so dropping the oldest never scans the map.
 */
export class SettledLog<T extends AnyRecord> {
  readonly items = new Map<string, T>();
  private readonly ring: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(
    private readonly retainMs: number,
    max: number,
  ) {
    this.ring = new Array<T | undefined>(retainMs === 0 ? 0 : max);
  }

  add(record: T): void {
    if (this.ring.length === 0) return;
    if (this.count === this.ring.length) this.dropOldest();
    this.ring[(this.head + this.count) % this.ring.length] = record;
    this.count++;
    this.items.set(record.id, record);
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
    this.items.clear();
    this.ring.fill(undefined);
    this.head = 0;
    this.count = 0;
  }

  private dropOldest(): void {
    const oldest = this.ring[this.head] as T;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.ring.length;
    this.count--;
    if (this.items.get(oldest.id) === oldest) this.items.delete(oldest.id);
  }
}
