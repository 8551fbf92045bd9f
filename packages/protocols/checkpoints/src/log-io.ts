// The stored log: reading it, committing a change with one kernel write, loading a snapshot, and the
// refusals those steps make. Internal to createCheckpoints.
import {
  copyWith,
  type Clock,
  type Committed,
  createKernel,
  createOwnerId,
  isParleyError,
  type StandardSchemaV1,
  type Store,
} from '@parley/core';
import { CheckpointsError } from './errors.js';
import { EMPTY_LOG, LOG, type LogRecord, readSnapshot } from './log-record.js';
import type { CheckpointRefusal, CheckpointRefusalCode } from './types.js';

/** @internal A refusal with its text as `message` (and, deprecated, `reason`). */
export function refuse(code: CheckpointRefusalCode, message: string, extra: object = {}): CheckpointRefusal {
  return { ok: false, code, message, reason: message, ...extra };
}

/** @internal `conflict` when the caller's `ifVersion` is not the log's version, otherwise nothing. */
export function stale(
  ifVersion: number | null | undefined,
  version: number | null,
): CheckpointRefusal | undefined {
  return ifVersion === undefined || ifVersion === version
    ? undefined
    : refuse('conflict', `the log is at version ${String(version)}, not ${String(ifVersion)}`, { version });
}

/** @internal The log with an undoable rollback committed, and the keys that commit frees. */
export function committed(log: LogRecord): { log: LogRecord; freed: string[] } {
  if (log.rollback === null || !log.rollback.canUndo || log.undo === null) return { log, freed: [] };
  const kept = new Set(log.checkpoints.map((c) => c.ref));
  const freed = [log.undo.ref, ...log.undo.checkpoints.filter((c) => !kept.has(c.ref)).map((c) => c.ref)];
  return { log: { ...log, rollback: { ...log.rollback, canUndo: false }, undo: null }, freed };
}

/** @internal Reads and writes the log of one `keyPrefix`. */
export interface LogIo<TState> {
  /** The log, its store version, and the record as committed (a later write's `basis`). */
  read(): Promise<
    | { log: LogRecord; version: number | null; committed: Committed<LogRecord> | undefined }
    | CheckpointRefusal
  >;
  /**
   * The log as this process last read or committed it, without reading the store (`undefined`: it
   * holds none). It may be behind: only for a write whose compare-and-set decides.
   */
  held(): { log: LogRecord; version: number; committed: Committed<LogRecord> } | undefined;
  /**
   * Commits `next` if the log is still the one read (its `rev`), with one kernel write; when it is
   * not, deletes the `written` keys (only this call's own) and refuses `conflict`. With `basis` (the
   * log as read) there is no second read, and the write lands only on exactly that log.
   */
  write(
    next: LogRecord,
    read: LogRecord,
    written?: readonly string[],
    basis?: Committed<LogRecord>,
  ): Promise<{ ok: true; version: number } | CheckpointRefusal>;
  /** The state a snapshot holds, checked by the schema when there is one. */
  loadState(ref: string, id: string): Promise<{ ok: true; state: TState } | CheckpointRefusal>;
}

/** @internal */
export function createLogIo<TState>(deps: {
  readonly store: Store;
  readonly clock: Clock;
  readonly logKey: string;
  readonly stateSchema: StandardSchemaV1 | undefined;
}): LogIo<TState> {
  const { store, clock, logKey, stateSchema } = deps;
  const kernel = createKernel({ store, clock, owner: createOwnerId('checkpoints') });
  /**
   * The log as this process last read or committed it: a read returns it without copying the stored
   * value while the store still holds its version (never handed out: views copy what they show).
   */
  let held: Committed<LogRecord> | undefined;
  return {
    async read() {
      try {
        const committed = await kernel.read(logKey, LOG, { basis: held });
        held = committed;
        return { log: committed?.value ?? EMPTY_LOG, version: committed?.storeVersion ?? null, committed };
      } catch (err) {
        if (isParleyError(err, 'corrupt_record', 'record_version')) return refuse(err.code, err.message);
        throw err;
      }
    },

    held() {
      return held === undefined
        ? undefined
        : { log: held.value, version: held.storeVersion, committed: held };
    },

    async write(next, read, written = [], basis) {
      const step = (current: LogRecord | undefined) =>
        (current?.rev ?? 0) === read.rev
          ? { value: copyWith(next, { rev: read.rev + 1 }), effects: [] }
          : { value: current, effects: ['moved'] };
      const result = await kernel.apply(logKey, LOG, step, null, basis === undefined ? {} : { basis });
      if (result.ok && result.effects.length === 0 && result.committed !== undefined) {
        held = result.committed;
        return { ok: true, version: result.committed.storeVersion };
      }
      for (const key of written) await store.delete(key);
      if (!result.ok && (result.code === 'corrupt_record' || result.code === 'record_version')) {
        return refuse(result.code, result.message);
      }
      if (!result.ok && result.code !== 'write_conflict') {
        throw new CheckpointsError('store_failed', result.message, { details: { key: logKey } });
      }
      const version = result.ok ? (result.committed?.storeVersion ?? null) : null;
      return refuse('conflict', `the log ${logKey} moved to version ${String(version)}`, { version });
    },

    async loadState(ref, id) {
      const snapshot = readSnapshot(await store.get(ref), ref, id, stateSchema);
      // a snapshot holds the state given to take/rollback, checked by the schema when there is one
      return snapshot.ok
        ? { ok: true, state: snapshot.value as TState }
        : refuse('corrupt_record', snapshot.reason);
    },
  };
}
