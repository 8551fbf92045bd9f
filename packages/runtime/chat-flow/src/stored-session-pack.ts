// The stored form of a session record (format 3): the flow snapshot without the fields whose value is
// the one a new run starts with, and the record without its `null`s. Read back whole, then checked
// like any snapshot: leaving a field out never stands for anything a new run does not start with.
import type { JsonValue } from '@parley/core';
import type { FlowSnapshot } from '@parley/fsm';
import { isRecord } from './internal/record.js';
import type { FlowSessionRecord } from './stored-session-record.js';

type Snapshot = FlowSnapshot<string, unknown>;
type Packed = Record<string, unknown>;

/** Whether `value` is an object with no own enumerable key (no key list made: this runs on every write). */
function empty(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * @internal The stored data of `record` at revision `rev`: its flow snapshot packed, `draft`, `retry`
 * and `expiresAt` left out when `null`. Plain JSON by construction.
 */
export function packRecord(record: FlowSessionRecord<string, unknown, unknown>, rev: number): JsonValue {
  const { id, draft, data, retry, expiresAt, savedAt } = record;
  const out: Packed = { id, flow: packSnapshot(record.flow) };
  if (draft !== null) out.draft = draft;
  out.data = data;
  if (retry !== null) out.retry = retry;
  if (expiresAt !== null) out.expiresAt = expiresAt;
  out.savedAt = savedAt;
  out.rev = rev;
  return out as JsonValue;
}

/** @internal The fields of stored data read back whole: what was left out is what a new run has. */
export function unpackRecord(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { id, flow, draft = null, data: value, retry = null, expiresAt = null, savedAt } = data;
  return { id, flow: unpackSnapshot(flow), draft, data: value, retry, expiresAt, savedAt };
}

/** The snapshot less the fields a new run of its flow starts with (`done` and `status` follow `state`). */
function packSnapshot(snapshot: Snapshot): Packed {
  const { state, context, done, createdAt, updatedAt, deadlines, history, status } = snapshot;
  const final = state === 'done';
  const out: Packed = { machine: snapshot.machine, version: snapshot.version, state };
  if (!empty(context)) out.context = context;
  if (done !== final) out.done = done;
  out.createdAt = createdAt;
  if (updatedAt !== createdAt) out.updatedAt = updatedAt;
  if (deadlines.length > 0) out.deadlines = deadlines;
  if (history.length > 0) out.history = history;
  if (status !== (final ? 'done' : 'active')) out.status = status;
  const { fields, part, attempts, mark, notices, reviews } = snapshot;
  if (!empty(fields)) out.fields = fields;
  if (part !== 0) out.part = part;
  if (!empty(attempts)) out.attempts = attempts;
  if (mark !== null) out.mark = mark;
  if (notices.length > 0) out.notices = notices;
  if (reviews.length > 0) out.reviews = reviews;
  return out;
}

/**
 * A stored snapshot with what was left out put back (a whole one, as format 2 stored it, is kept as
 * it is); anything that is not an object is left for `flow.restore` to refuse.
 */
function unpackSnapshot(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const { machine, version, state, createdAt } = value;
  const final = state === 'done';
  // only an absent field is put back: a stored `null` stays for restore to judge
  const or = (stored: unknown, fallback: unknown): unknown => (stored === undefined ? fallback : stored);
  return {
    machine,
    version,
    state,
    context: or(value.context, {}),
    done: or(value.done, final),
    createdAt,
    updatedAt: or(value.updatedAt, createdAt),
    deadlines: or(value.deadlines, []),
    history: or(value.history, []),
    status: or(value.status, final ? 'done' : 'active'),
    fields: or(value.fields, {}),
    part: or(value.part, 0),
    attempts: or(value.attempts, {}),
    mark: or(value.mark, null),
    notices: or(value.notices, []),
    reviews: or(value.reviews, []),
  };
}
