// The stored form of a session record (format 5): the fields of the flow snapshot written into the
// record itself, less those whose value is the one a new run starts with; its history as [from,
// event, ms after createdAt] (each entry's `to` is the next one's `from`, the last one's the state);
// `updatedAt` and `savedAt` left out when they are the last move's time; the record's own times
// (`createdAt`, `updatedAt`, `savedAt`, `expiresAt`) as their decimal text; the record without its
// `null`s. Read back whole, then checked like any snapshot: leaving a field out never stands for
// anything the record did not hold. Why text for a time: V8 writes a number past 2^31 through its
// slow double formatting (about 200 ns a time, on every write), and the text of a number it has
// formatted once comes from its number-to-text cache; an object more costs about 100 ns a write.
// Formats 4 (the snapshot under `flow`, times as numbers), 3 and 2 are read by their own rules.
import type { JsonValue } from '@parley/core';
import type { FlowSnapshot, HistoryEntry } from '@parley/fsm';
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
 * @internal The stored data (format 5) of `record` at revision `rev`: its flow snapshot's fields
 * packed into it, `draft`, `retry` and `expiresAt` left out when `null`, `savedAt` when it is the
 * snapshot's `updatedAt`, each time as its text. Plain JSON by construction (a record's times are
 * numbers: its steps take them from the clock, and a record read back was checked whole).
 */
export function packRecord(record: FlowSessionRecord<string, unknown, unknown>, rev: number): JsonValue {
  const { id, flow, draft, data, retry, expiresAt, savedAt } = record;
  const out: Packed = { id };
  packSnapshot(flow, out);
  if (draft !== null) out.draft = draft;
  out.data = data;
  if (retry !== null) out.retry = retry;
  if (expiresAt !== null) out.expiresAt = String(expiresAt);
  if (savedAt !== flow.updatedAt) out.savedAt = String(savedAt);
  out.rev = rev;
  return out as JsonValue;
}

/**
 * @internal The fields of stored data read back whole by the rules of its `format` (5; 4; or 3 and
 * 2: format 2 stored everything, which format 3's rules keep as it is).
 */
export function unpackRecord(
  data: Readonly<Record<string, unknown>>,
  format: number,
): Record<string, unknown> {
  const { id, draft = null, data: value, retry = null } = data;
  if (format === 5) {
    const times = { ...data, createdAt: timeOf(data.createdAt), updatedAt: timeOf(data.updatedAt) };
    const flow = unpackSnapshot4(times) as Snapshot; // `data` is an object: so is what it gives
    const expiresAt = data.expiresAt === undefined ? null : timeOf(data.expiresAt);
    const savedAt = data.savedAt === undefined ? flow.updatedAt : timeOf(data.savedAt);
    return { id, flow, draft, data: value, retry, expiresAt, savedAt };
  }
  const { expiresAt = null } = data;
  const flow = format === 4 ? unpackSnapshot4(data.flow) : unpackSnapshot(data.flow);
  const savedAt =
    format === 4 && data.savedAt === undefined && isRecord(flow) ? flow.updatedAt : data.savedAt;
  return { id, flow, draft, data: value, retry, expiresAt, savedAt };
}

/**
 * A time stored as text read back: the number whose text it is, exactly (`String` of a number reads
 * back as that number); a text no number writes, or anything else, is left as it is, for the
 * record's checks to refuse.
 */
function timeOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const time = Number(value);
  return String(time) === value ? time : value;
}

/**
 * The snapshot's fields written into `out`, less those a new run of its flow starts with (`done`
 * and `status` follow `state`, `updatedAt` is the last move's time), its history shortened, its
 * times as text.
 */
function packSnapshot(snapshot: Snapshot, out: Packed): void {
  const { state, context, done, createdAt, updatedAt, deadlines, history, status } = snapshot;
  const final = state === 'done';
  out.machine = snapshot.machine;
  out.version = snapshot.version;
  out.state = state;
  if (!empty(context)) out.context = context;
  if (done !== final) out.done = done;
  out.createdAt = String(createdAt);
  if (updatedAt !== lastMove(history, createdAt)) out.updatedAt = String(updatedAt);
  if (deadlines.length > 0) out.deadlines = deadlines;
  if (history.length > 0) out.history = packHistory(history, state, createdAt);
  if (status !== (final ? 'done' : 'active')) out.status = status;
  const { fields, part, attempts, mark, notices, reviews } = snapshot;
  if (!empty(fields)) out.fields = fields;
  if (part !== 0) out.part = part;
  if (!empty(attempts)) out.attempts = attempts;
  if (mark !== null) out.mark = mark;
  if (notices.length > 0) out.notices = notices;
  if (reviews.length > 0) out.reviews = reviews;
}

/** When the run last moved: its last history entry's time, or its creation. */
function lastMove(history: readonly unknown[], createdAt: unknown): unknown {
  return history.length > 0
    ? (history[history.length - 1] as { readonly at?: unknown } | null)?.at
    : createdAt;
}

/**
 * The history as one flat list [from, event, at − createdAt, …]: each entry's `to` is the next one's
 * `from` (the state for the last), as in every history a flow restores. When an entry would not
 * come back exactly (not a whole number of ms after the creation, or not a link of that chain), the
 * entries are stored whole instead.
 */
function packHistory(history: readonly HistoryEntry[], state: string, createdAt: number): unknown[] {
  // sized up front: pushing onto `[]` would give it room for 16 before the first triple
  const flat: unknown[] = new Array(history.length * 3);
  for (let k = 0; k < history.length; k++) {
    const { from, to, event, at } = history[k] as HistoryEntry;
    const ms = at - createdAt;
    if (!(Number.isSafeInteger(ms) && createdAt + ms === at && to === (history[k + 1]?.from ?? state))) {
      return history as unknown[];
    }
    flat[3 * k] = from;
    flat[3 * k + 1] = event;
    flat[3 * k + 2] = ms;
  }
  return flat;
}

/**
 * A stored snapshot of format 4 (or the snapshot's fields of a record of format 5, its times read
 * back) with what was left out put back: a history of entries stored whole
 * is kept as it is, a flat one is read as [from, event, ms after createdAt] triples, each `to` the
 * next `from` or the state; anything else is left as it is for `flow.restore` to refuse.
 */
function unpackSnapshot4(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const { history, state, createdAt } = value;
  if (!Array.isArray(history) || typeof createdAt !== 'number') return unpackSnapshot(value);
  let whole: unknown[] = history;
  if (!isRecord(history[0]) && history.length % 3 === 0) {
    whole = [];
    for (let k = 0; k < history.length; k += 3) {
      const ms: unknown = history[k + 2];
      const at = typeof ms === 'number' ? createdAt + ms : null;
      whole.push({
        from: history[k],
        to: k + 3 < history.length ? history[k + 3] : state,
        event: history[k + 1],
        at,
      });
    }
  }
  const updatedAt = value.updatedAt === undefined ? lastMove(whole, createdAt) : value.updatedAt;
  return unpackSnapshot(value, whole, updatedAt);
}

/**
 * A stored snapshot of format 3 with what was left out put back (a whole one, as format 2 stored it,
 * is kept as it is); anything that is not an object is left for `flow.restore` to refuse. Format 4
 * passes its history and `updatedAt` read back.
 */
function unpackSnapshot(value: unknown, history?: unknown, updated?: unknown): unknown {
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
    updatedAt: or(updated ?? value.updatedAt, createdAt),
    deadlines: or(value.deadlines, []),
    history: or(history ?? value.history, []),
    status: or(value.status, final ? 'done' : 'active'),
    fields: or(value.fields, {}),
    part: or(value.part, 0),
    attempts: or(value.attempts, {}),
    mark: or(value.mark, null),
    notices: or(value.notices, []),
    reviews: or(value.reviews, []),
  };
}
