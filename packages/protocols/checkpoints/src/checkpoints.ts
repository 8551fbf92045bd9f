import { canonicalJson, generateId, type JsonValue, systemClock } from '@parley/core';
import { CheckpointsError, DEFAULT_MAX_CHECKPOINTS, MAX_CHECKPOINTS } from './errors.js';
import { committed, createLogIo, refuse, stale } from './log-io.js';
import { copyOf, type LogRecord, viewOf } from './log-record.js';
import type { Checkpoint, Checkpoints, CheckpointsOptions } from './types.js';

/**
 * Creates the checkpoints of one authoritative state (a campaign, a document, a tool's effects),
 * kept in a Store under `keyPrefix`.
 *
 * Use it where the seed asks for rollback: `take` after every command, `rollback` to an earlier
 * one on request (the host puts the returned state back), `undo` while no new command came, and
 * `commit` when one does. The log is bounded by `maxCheckpoints`; it is a durable-kernel record
 * (`@parley/core`), and every change is one write of it that fails (`conflict`) when the log moved
 * since it was read, so two writers never overwrite each other and a restart loses nothing. Every
 * snapshot key is unique, so a writer that loses a race deletes only the snapshots it wrote.
 *
 * @throws CheckpointsError `invalid_argument` for an empty `keyPrefix`, or a `maxCheckpoints` (also
 * when a function returns it) that is not an integer in 0…{@link MAX_CHECKPOINTS}.
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { createCheckpoints } from '@parley/checkpoints';
 *
 * const checkpoints = createCheckpoints<{ hp: number }>({ store: createMemoryStore(), keyPrefix: 'game:1:', maxCheckpoints: 3 });
 * await checkpoints.take('turn_1', { hp: 10 });
 * await checkpoints.take('turn_2', { hp: 4 });
 *
 * const back = await checkpoints.rollback('turn_1', { hp: 4 });
 * console.log(back.ok && back.state); // { hp: 10 }
 * const undone = await checkpoints.undo();
 * console.log(undone.ok && undone.state); // { hp: 4 }
 *
 * await checkpoints.rollback('turn_1', { hp: 4 });
 * await checkpoints.commit(); // the next command: the rollback is now a branch
 * console.log((await checkpoints.undo()).ok); // false (undo_unavailable)
 * ```
 */
export function createCheckpoints<TState = JsonValue>(options: CheckpointsOptions): Checkpoints<TState> {
  const { store, keyPrefix: prefix, stateSchema } = options;
  const clock = options.clock ?? systemClock;
  if (typeof prefix !== 'string' || prefix.length === 0) {
    throw new CheckpointsError('invalid_argument', 'keyPrefix must be a non-empty string');
  }
  const logKey = `${prefix}checkpoints`;
  const nonce = options.generateId ?? (() => generateId());
  // every snapshot key is new, so a writer that loses a race deletes only what it wrote
  const refOf = (id: string): string => `${prefix}checkpoint:${id}:${nonce()}`;
  const max = async (): Promise<number> => {
    const given = options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
    return cap(typeof given === 'function' ? await given() : given);
  };
  if (typeof options.maxCheckpoints !== 'function') cap(options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS);

  const { read, write, loadState } = createLogIo<TState>({ store, clock, logKey, stateSchema });

  return {
    async log() {
      const current = await read();
      return 'ok' in current ? current : { ok: true, ...viewOf(current.log, current.version) };
    },

    async take(id, state, takeOptions = {}) {
      const limit = await max();
      if (limit === 0) return refuse('disabled', 'maxCheckpoints is 0: checkpoints are off');
      const current = await read();
      if ('ok' in current) return current;
      const { log, freed } = committed(current.log);
      const existing = log.checkpoints.find((c) => c.id === id);
      if (existing !== undefined) {
        const kept = await loadState(existing.ref, id);
        if (kept.ok && canonicalJson(json(kept.state)) === canonicalJson(json(state)) && freed.length === 0) {
          return { ok: true, checkpoint: copyOf(existing), dropped: [], log: viewOf(log, current.version) };
        }
        return refuse('duplicate_id', `checkpoint ${id} is kept already, with other content`);
      }
      const checkpoint: Checkpoint = { id, at: clock.now(), label: takeOptions.label ?? id, ref: refOf(id) };
      await store.set(checkpoint.ref, { kind: 'parley.checkpoint', id, state: json(state) });
      const all = [...log.checkpoints, checkpoint];
      const dropped = all.slice(0, Math.max(0, all.length - limit));
      const next: LogRecord = { ...log, checkpoints: all.slice(dropped.length) };
      const saved = await write(next, current.log, [checkpoint.ref], current.committed);
      if (!saved.ok) return saved;
      for (const key of [...freed, ...dropped.map((c) => c.ref)]) await store.delete(key);
      const view = viewOf(next, saved.version);
      return { ok: true, checkpoint: copyOf(checkpoint), dropped: dropped.map((c) => c.id), log: view };
    },

    async load(id) {
      const current = await read();
      if ('ok' in current) return current;
      const checkpoint = current.log.checkpoints.find((c) => c.id === id);
      if (checkpoint === undefined) return refuse('no_checkpoint', `No checkpoint ${id} is kept`);
      const loaded = await loadState(checkpoint.ref, id);
      return loaded.ok
        ? { ok: true, state: loaded.state, id, log: viewOf(current.log, current.version) }
        : loaded;
    },

    async rollback(id, present, rollbackOptions = {}) {
      const limit = await max();
      if (limit === 0) return refuse('disabled', 'maxCheckpoints is 0: rollback is off');
      const current = await read();
      if ('ok' in current) return current;
      const { log, version } = current;
      const changed = stale(rollbackOptions.ifVersion, version);
      if (changed !== undefined) return changed;
      const index = log.checkpoints.findIndex((c) => c.id === id);
      const checkpoint = log.checkpoints[index];
      if (checkpoint === undefined) {
        return refuse('no_checkpoint', `There is no checkpoint for ${id} (kept: ${limit})`);
      }
      const latest = log.checkpoints[log.checkpoints.length - 1] as Checkpoint;
      if (index === log.checkpoints.length - 1) {
        return refuse('not_earlier', `${id} is the latest checkpoint: nothing to roll back`);
      }
      const restored = await loadState(checkpoint.ref, id);
      if (!restored.ok) return restored;
      const pending = log.rollback?.canUndo === true && log.undo !== null;
      const fromId = pending ? (log.rollback as { fromId: string }).fromId : latest.id;
      let undo = log.undo;
      const written: string[] = [];
      if (!pending || undo === null) {
        const ref = `${prefix}undo:${nonce()}`;
        await store.set(ref, { kind: 'parley.checkpoint', id: fromId, state: json(present) });
        written.push(ref);
        undo = { ref, checkpoints: log.checkpoints };
      }
      const next: LogRecord = {
        ...log,
        checkpoints: log.checkpoints.slice(0, index + 1),
        rollback: { fromId, toId: id, canUndo: true },
        undo,
      };
      const saved = await write(next, log, written);
      if (!saved.ok) return saved;
      return { ok: true, state: restored.state, id, log: viewOf(next, saved.version) };
    },

    async undo(undoOptions = {}) {
      const current = await read();
      if ('ok' in current) return current;
      const { log, version } = current;
      const changed = stale(undoOptions.ifVersion, version);
      if (changed !== undefined) return changed;
      if (log.rollback === null) return refuse('nothing_to_undo', 'No rollback to undo');
      if (!log.rollback.canUndo || log.undo === null) {
        const { fromId, toId } = log.rollback;
        return refuse(
          'undo_unavailable',
          `A new command was sent after rolling back ${fromId} to ${toId}: that branch is final`,
        );
      }
      const kept = await loadState(log.undo.ref, log.rollback.fromId);
      if (!kept.ok) return kept;
      const next: LogRecord = { ...log, checkpoints: log.undo.checkpoints, rollback: null, undo: null };
      const saved = await write(next, log);
      if (!saved.ok) return saved;
      await store.delete(log.undo.ref);
      return { ok: true, state: kept.state, id: log.rollback.fromId, log: viewOf(next, saved.version) };
    },

    async commit() {
      const current = await read();
      if ('ok' in current) return current;
      const { log, freed } = committed(current.log);
      if (freed.length === 0) return { ok: true, committed: false, log: viewOf(log, current.version) };
      const saved = await write(log, current.log);
      if (!saved.ok) return saved;
      for (const key of freed) await store.delete(key);
      return { ok: true, committed: true, log: viewOf(log, saved.version) };
    },
  };
}

/** States are plain JSON (documented on `Checkpoints`); a Store refuses anything else when it writes. */
function json(state: unknown): JsonValue {
  return state as JsonValue;
}

function cap(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_CHECKPOINTS) {
    throw new CheckpointsError(
      'invalid_argument',
      `maxCheckpoints must be an integer in 0…${MAX_CHECKPOINTS}, got ${String(value)}`,
      { details: { value: String(value), limit: MAX_CHECKPOINTS } },
    );
  }
  return value;
}
