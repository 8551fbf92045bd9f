// The stored log (a kernel record) and snapshot records, and their checks on read (pure).
import { type JsonValue, type RecordCodec, type StandardSchemaV1, validate } from '@parley/core';
import type { Checkpoint, CheckpointLog, RollbackState } from './types.js';

/** @internal The log as stored under `<prefix>checkpoints` (the data of a kernel record). */
export interface LogRecord {
  /** Bumped by every write: a change computed from an older log is refused (`conflict`). */
  readonly rev: number;
  readonly checkpoints: readonly Checkpoint[];
  readonly rollback: RollbackState | null;
  /** While a rollback can be undone: the present kept before it, and the checkpoints it hid. */
  readonly undo: { readonly ref: string; readonly checkpoints: readonly Checkpoint[] } | null;
}

/** @internal */
export const EMPTY_LOG: LogRecord = {
  rev: 0,
  checkpoints: [],
  rollback: null,
  undo: null,
};

type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** @internal The log's kind and format (format 2: a kernel record; a format-1 log is `corrupt_record`). */
export const LOG: RecordCodec<LogRecord> = {
  kind: 'parley.checkpoints',
  version: 2,
  decode(v) {
    if (!isObject(v) || !Number.isInteger(v.rev) || !isList(v.checkpoints)) return undefined;
    const rollback = v.rollback;
    const okRollback =
      rollback === null ||
      (isObject(rollback) &&
        typeof rollback.fromId === 'string' &&
        typeof rollback.toId === 'string' &&
        typeof rollback.canUndo === 'boolean');
    const undo = v.undo;
    const okUndo =
      undo === null || (isObject(undo) && typeof undo.ref === 'string' && isList(undo.checkpoints));
    // every field checked here
    return okRollback && okUndo ? (v as unknown as LogRecord) : undefined;
  },
  encode: (log) => log as unknown as JsonValue, // plain JSON by construction
  text: (data) => logText(data as unknown as LogRecord),
};

/**
 * Where an entry keeps its own JSON text once written (a property JSON, spreads and key lists skip):
 * an entry is never changed once made, and what a caller is shown is a copy of it.
 */
const TEXT = Symbol('parley.checkpoints.text');

/**
 * The log's JSON, with each entry serialised once: a take adds one entry to a log that held the
 * others, so only that one is serialised. `undefined` (the log serialised whole) for a log with
 * other fields than its four or a revision that is no integer.
 */
function logText(log: LogRecord): string | undefined {
  const { rev, checkpoints, rollback, undo } = log;
  if (!Number.isSafeInteger(rev) || Object.keys(log).length !== 4) return undefined;
  // a rollback's undo (kept only until the next command) is serialised whole
  return `{"rev":${rev},"checkpoints":${listText(checkpoints)},"rollback":${JSON.stringify(rollback)},"undo":${JSON.stringify(undo)}}`;
}

/** A list of entries as JSON, from the text each entry keeps. */
function listText(list: readonly Checkpoint[]): string {
  let text = '[';
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Checkpoint & { [TEXT]?: string };
    let entryText = entry[TEXT];
    if (entryText === undefined) {
      entryText = JSON.stringify(entry);
      Object.defineProperty(entry, TEXT, { value: entryText });
    }
    text += i === 0 ? entryText : `,${entryText}`;
  }
  return `${text}]`;
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
  // copies: the record may be the log this process holds, which a caller must not change
  const { rollback } = record;
  return { checkpoints: record.checkpoints.map(copyOf), rollback: rollback && { ...rollback }, version };
}

/** @internal A caller's own copy of a checkpoint entry of the log. */
export const copyOf = (checkpoint: Checkpoint): Checkpoint => ({ ...checkpoint });

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
