// The stored log and snapshot records, and their checks on read (pure).
import { type JsonValue, type StandardSchemaV1, type StoreEntry, validate } from '@parley/core';
import type { Checkpoint, CheckpointLog, RollbackState } from './types.js';

/** @internal The log as stored under `<prefix>checkpoints`. */
export interface LogRecord {
  readonly kind: 'parley.checkpoints';
  readonly format: 1;
  readonly checkpoints: readonly Checkpoint[];
  readonly rollback: RollbackState | null;
  /** While a rollback can be undone: the present kept before it, and the checkpoints it hid. */
  readonly undo: { readonly ref: string; readonly checkpoints: readonly Checkpoint[] } | null;
}

/** @internal */
export const EMPTY_LOG: LogRecord = {
  kind: 'parley.checkpoints',
  format: 1,
  checkpoints: [],
  rollback: null,
  undo: null,
};

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** @internal Checks a stored log (an absent one is empty). */
export function readLog(entry: StoreEntry | undefined): Read<LogRecord> {
  if (entry === undefined) return { ok: true, value: EMPTY_LOG };
  const v = entry.value;
  const bad = (reason: string): Read<LogRecord> => ({ ok: false, reason: `the log ${entry.key}: ${reason}` });
  if (!isObject(v) || v.kind !== 'parley.checkpoints' || v.format !== 1) return bad('not a checkpoint log');
  if (!isList(v.checkpoints)) return bad('"checkpoints" must be a list of checkpoints');
  const rollback = v.rollback;
  if (
    rollback !== null &&
    !(
      isObject(rollback) &&
      typeof rollback.fromId === 'string' &&
      typeof rollback.toId === 'string' &&
      typeof rollback.canUndo === 'boolean'
    )
  ) {
    return bad('"rollback" must be { fromId, toId, canUndo } or null');
  }
  const undo = v.undo;
  if (undo !== null && !(isObject(undo) && typeof undo.ref === 'string' && isList(undo.checkpoints))) {
    return bad('"undo" must be { ref, checkpoints } or null');
  }
  // every field checked above
  return { ok: true, value: v as unknown as LogRecord };
}

/** @internal Checks a stored snapshot: written by this package for `id`, its state passing the schema. */
export function readSnapshot(
  value: JsonValue | undefined,
  ref: string,
  id: string,
  schema: StandardSchemaV1 | undefined,
): Read<JsonValue> {
  if (!isObject(value) || value.kind !== 'parley.checkpoint' || value.id !== id || !('state' in value)) {
    return { ok: false, reason: `the snapshot ${ref} is missing or not the one of ${id}` };
  }
  const state = value.state as JsonValue;
  if (schema === undefined) return { ok: true, value: state };
  const checked = validate(schema, state);
  return checked.ok
    ? { ok: true, value: checked.value as JsonValue } // the schema's output of a JSON state
    : {
        ok: false,
        reason: `the snapshot ${ref} fails the state schema: ${checked.issues[0]?.message ?? ''}`,
      };
}

/** @internal The public view of a log record. */
export function viewOf(record: LogRecord, version: number | null): CheckpointLog {
  return { checkpoints: record.checkpoints, rollback: record.rollback, version };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isList(value: unknown): value is Checkpoint[] {
  return (
    Array.isArray(value) &&
    value.every(
      (c) =>
        isObject(c) &&
        typeof c.id === 'string' &&
        typeof c.ref === 'string' &&
        typeof c.label === 'string' &&
        Number.isFinite(c.at),
    )
  );
}
