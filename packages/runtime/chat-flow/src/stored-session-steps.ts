// A stored flow session as a durable-kernel record: its codec and the pure steps over it.
import type { JsonValue, KernelRefusalCode, KernelStep, RecordCodec, StandardSchemaV1 } from '@parley/core';
import type { Flow } from '@parley/fsm';
import {
  FLOW_SESSION_KIND,
  FLOW_SESSION_RECORD_FORMAT,
  type FlowSessionRecord,
  type RecordProblem,
  readSessionRecord,
} from './stored-session-record.js';
import { isRecord } from './internal/record.js';
import { packRecord, unpackRecord } from './stored-session-pack.js';
import type { FlowSessionRefusalCode } from './stored-session-refusals.js';

/**
 * @internal What the kernel record of a session holds: the record and its revision (bumped by every
 * write, so a handle's write applies only to the revision it last saw), or why the data is not a
 * session of this flow (never written back: a step leaves such a record as it is).
 */
export type SessionSlot<TStep extends string, TContext, TData> =
  | { readonly rev: number; readonly record: FlowSessionRecord<TStep, TContext, TData> }
  | { readonly rev: number; readonly problem: RecordProblem; readonly raw: JsonValue };

/**
 * @internal The kernel codec of the sessions of `flow`. A record is checked whole (its flow snapshot
 * through `flow.restore`) each time it is read from the store; a handle's writes and the giving back
 * of its lease name the version it committed (the kernel's basis) and read nothing, so a turn reads
 * the record once, when it takes the lease. (Remembering decoded records by their JSON text, as it
 * did when a turn read the record three times, cost more than the checks it saved.) `format` is the
 * rules the data is read by: a codec of a former format reads a record of that format (format 2 by
 * format 3's rules, which keep what it stored); whatever the codec, it writes format 5.
 */
export function sessionCodec<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  dataSchema: StandardSchemaV1 | undefined,
  format: number = FLOW_SESSION_RECORD_FORMAT,
): RecordCodec<SessionSlot<TStep, TContext, TData>> {
  return {
    kind: FLOW_SESSION_KIND,
    version: format,
    decode: (data) => decodeSlot<TStep, TContext, TData>(flow, data, format, dataSchema),
    encode(slot) {
      if ('problem' in slot) return slot.raw;
      return packRecord(slot.record as FlowSessionRecord<string, unknown, unknown>, slot.rev);
    },
  };
}

/**
 * @internal The slot of stored session data read by the rules of `format`: `undefined` when it is no
 * session record at all (no object, revision or id), a problem when it is not one of `flow` (checked
 * whole; the data by `dataSchema` when given).
 */
export function decodeSlot<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  data: unknown,
  format: number,
  dataSchema: StandardSchemaV1 | undefined,
): SessionSlot<TStep, TContext, TData> | undefined {
  if (!isRecord(data) || !Number.isSafeInteger(data.rev) || typeof data.id !== 'string') return undefined;
  const rev = data.rev as number; // checked just above
  const fields = unpackRecord(data, format); // what format 5, 4 or 3 left out put back (2 stored it all)
  const read = readSessionRecord<TStep, TContext, TData>(flow, data.id, fields, dataSchema);
  // the data was read from the store: plain JSON
  return 'ok' in read ? { rev, record: read.record } : { rev, problem: read, raw: data as JsonValue };
}

/** @internal A step's verdict: what it wrote, or why it wrote nothing. */
export type SessionVerdict<R> =
  | { readonly ok: true; readonly out: R }
  | { readonly ok: false; readonly code: FlowSessionRefusalCode; readonly reason: string };

/** @internal The parts of a session record a change decides (its id and times are the write's). */
export type SessionParts<TStep extends string, TContext, TData> = Pick<
  FlowSessionRecord<TStep, TContext, TData>,
  'flow' | 'draft' | 'data' | 'retry'
>;

/** @internal A change of a session: the next record's parts and what to report. */
export type SessionChange<TStep extends string, TContext, TData, R> = (
  record: FlowSessionRecord<TStep, TContext, TData>,
  now: number,
) => { readonly next: SessionParts<TStep, TContext, TData>; readonly out: R };

/** @internal What a write of a handle asks for. */
export interface WriteEvent<TStep extends string, TContext, TData, R> {
  readonly id: string;
  /** The revision the handle last read or wrote. */
  readonly rev: number;
  readonly idleTimeoutMs: number | undefined;
  readonly change: SessionChange<TStep, TContext, TData, R>;
}

type Slot<TStep extends string, TContext, TData> = SessionSlot<TStep, TContext, TData>;

/** @internal What `start` asks for: the record of a new session, its flow started at the write's time. */
export interface CreateEvent<TData, TContext> {
  readonly id: string;
  readonly options: { readonly data: TData; readonly context?: TContext | undefined };
}

/**
 * @internal Creates a session record, its flow started and its times stamped at the write's clock
 * reading (the only one of a `start`); refused `exists` when one is stored. One step per store.
 */
export function createStep<TStep extends string, TContext, TData>(
  flow: Flow<TStep, TContext>,
  idleTimeoutMs: number | undefined,
): KernelStep<Slot<TStep, TContext, TData>, CreateEvent<TData, TContext>, SessionVerdict<undefined>> {
  return (current, { id, options }, now) => {
    const { data, context } = options;
    if (current !== undefined) {
      return { value: current, effects: [refusal('exists', `a session ${id} is already stored`)] };
    }
    const snapshot = flow.start(context === undefined ? { at: now } : { at: now, context });
    const expiresAt = idleTimeoutMs === undefined ? null : now + idleTimeoutMs;
    const record = stamp<TStep, TContext, TData>(
      id,
      { flow: snapshot, draft: null, data, retry: null },
      expiresAt,
      now,
    );
    return { value: { rev: 1, record }, effects: [CREATED] };
  };
}

const CREATED: SessionVerdict<undefined> = Object.freeze({ ok: true, out: undefined });

/** The record of session `id` with `parts`, as one object literal (the stored key order). */
function stamp<TStep extends string, TContext, TData>(
  id: string,
  parts: SessionParts<TStep, TContext, TData>,
  expiresAt: number | null,
  savedAt: number,
): FlowSessionRecord<TStep, TContext, TData> {
  const { flow, draft, data, retry } = parts;
  const kind = FLOW_SESSION_KIND;
  return { kind, format: FLOW_SESSION_RECORD_FORMAT, id, flow, draft, data, retry, expiresAt, savedAt };
}

/**
 * @internal A write of a handle, decided on the committed record: it must be the session, at the
 * revision the handle saw, not expired now; then the change runs and the times are stamped. One
 * step for every write (the event carries the change).
 */
function write(
  current: Slot<string, unknown, unknown> | undefined,
  event: WriteEvent<string, unknown, unknown, unknown>,
  now: number,
): { value: Slot<string, unknown, unknown> | undefined; effects: SessionVerdict<unknown>[] } {
  const checked = check(current, event.id, now);
  if (!checked.ok) return { value: current, effects: [checked] };
  const { rev, record } = checked.out;
  if (rev !== event.rev) {
    const why = `the record of session ${event.id} is at revision ${rev}, not ${event.rev}`;
    return { value: current, effects: [refusal('conflict', why)] };
  }
  const { next, out } = event.change(record, now);
  const expiresAt = event.idleTimeoutMs === undefined ? null : now + event.idleTimeoutMs;
  return {
    value: { rev: rev + 1, record: stamp(record.id, next, expiresAt, now) },
    effects: [{ ok: true, out }],
  };
}

/** @internal The step of every handle write, typed for one session store. */
export function writeStep<TStep extends string, TContext, TData, R>(): KernelStep<
  Slot<TStep, TContext, TData>,
  WriteEvent<TStep, TContext, TData, R>,
  SessionVerdict<R>
> {
  return write as unknown as KernelStep<
    Slot<TStep, TContext, TData>,
    WriteEvent<TStep, TContext, TData, R>,
    SessionVerdict<R>
  >; // the same function: its types do not change what it does
}

/** @internal Checks a committed slot as session `id` at `now`: present, readable, its own, not expired. */
export function check<TStep extends string, TContext, TData>(
  slot: Slot<TStep, TContext, TData> | undefined,
  id: string,
  now: number,
): SessionVerdict<Extract<Slot<TStep, TContext, TData>, { record: unknown }>> {
  if (slot === undefined) return refusal('not_found', `no session ${id} is stored`);
  if ('problem' in slot) return refusal(slot.problem.code, `session ${id}: ${slot.problem.reason}`);
  const { record } = slot;
  if (record.id !== id)
    return refusal('corrupt_record', `session ${id}: the record is of session "${record.id}"`);
  if (record.expiresAt !== null && now >= record.expiresAt) {
    return refusal('expired', `session ${id} expired at ${new Date(record.expiresAt).toISOString()}`);
  }
  return { ok: true, out: slot };
}

const refusal = (code: FlowSessionRefusalCode, reason: string): SessionVerdict<never> => ({
  ok: false,
  code,
  reason,
});

/** @internal The session refusal code of a kernel refusal. */
export function sessionCodeOf(code: KernelRefusalCode): FlowSessionRefusalCode {
  if (code === 'record_version') return 'foreign_version';
  if (code === 'write_conflict') return 'conflict';
  if (code === 'claim_conflict') return 'corrupt_record'; // a claim record under a session key
  return code;
}
