import type { JsonValue, RecordCodec } from '@parley/core';
// zod/mini: the same validation as zod's classic API at a fraction of its bundle size.
import * as z from 'zod/mini';
import type { Protocol } from '../protocol.js';
import { extraOf, type Outgoing, Outgoing as OutgoingRecord } from './records.js';

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
  response: z.optional(z.unknown()),
  reason: z.optional(z.string()),
  createdAt: z.number(), // zod 4 numbers are finite
  deadlineAt: z.number(),
  maxDeadlineAt: z.number(),
  timeoutMs: z.int().check(z.positive()),
  human: z.boolean(),
  settledAt: z.optional(z.number()),
});
export type StoredRequest = z.infer<typeof StoredRequest>;

export function encode(record: Outgoing, patch: Partial<StoredRequest> = {}): StoredRequest {
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
  return stored;
}

/**
 * The kernel codec of the requests of requester `self` (kind `parley.correlate.request`, format 1):
 * a record is refused (`corrupt_record`) when it is not one this correlator could have written — the
 * wrong shape, another requester, times out of order (`createdAt ≤ deadlineAt ≤ maxDeadlineAt`), or a
 * `settledAt` that does not fit its state. The id is checked against the key by the caller.
 */
export function requestCodec(self: string): RecordCodec<StoredRequest> {
  return {
    kind: 'parley.correlate.request',
    version: 1,
    decode(value) {
      const parsed = StoredRequest.safeParse(value);
      if (!parsed.success) return undefined;
      const r = parsed.data;
      const inOrder = r.createdAt <= r.deadlineAt && r.deadlineAt <= r.maxDeadlineAt;
      const settledFits = (r.state === 'pending') === (r.settledAt === undefined);
      return r.from === self && inOrder && settledFits ? r : undefined;
    },
    encode: (value) => value as JsonValue, // payloads and responses passed their schemas; the store checks JSON
  };
}

export function fromStored(stored: StoredRequest, protocol: Protocol, version: number): Outgoing {
  const record = new OutgoingRecord(
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
  extraOf(record).version = version;
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
