import { generateId, type JsonValue, systemClock } from '@parley/core';
import type { CheckpointsContext } from './context.js';
import { CheckpointsError, DEFAULT_MAX_CHECKPOINTS, MAX_CHECKPOINTS } from './errors.js';
import { committed, createLogIo, type LogIo, refuse } from './log-io.js';
import { viewOf } from './log-record.js';
import { rollbackTo, undoRollback } from './rollback.js';
import { createSweep, type Sweep } from './sweep.js';
import { takeCheckpoint } from './take.js';
import type { Checkpoints, CheckpointsOptions } from './types.js';

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
  const nonce = options.generateId ?? counted(generateId().slice(0, NONCE_RANDOM));
  const given = options.maxCheckpoints ?? DEFAULT_MAX_CHECKPOINTS;
  // a fixed cap is checked once, here, and read without an await; a function is read (and checked) at each call
  const max = typeof given === 'function' ? async (): Promise<number> => cap(await given()) : cap(given);

  const logKey = `${prefix}checkpoints`;
  const io = createLogIo<TState>({ store, clock, logKey, stateSchema });
  const sweep = createSweep(store, prefix, logKey);
  // the first change of the log this instance writes also deletes what a crash left unnamed
  const write: typeof io.write = (next, basis, written, committed) =>
    sweep.pending()
      ? sweptWrite(io.write, sweep, next, basis, written, committed)
      : io.write(next, basis, written, committed);
  const ctx: CheckpointsContext<TState> = { ...io, write, store, clock, prefix, logKey, nonce, max };
  const { read, loadState } = io;

  return {
    async log() {
      const current = await read();
      return 'ok' in current ? current : { ok: true, ...viewOf(current.log, current.version) };
    },
    take: (id, state, takeOptions = {}) => takeCheckpoint(ctx, id, state, takeOptions.label),
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
    rollback: (id, present, rollbackOptions = {}) => rollbackTo(ctx, id, present, rollbackOptions.ifVersion),
    undo: (undoOptions = {}) => undoRollback(ctx, undoOptions.ifVersion),
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

/** A log write, then (when it landed) the sweep, judged on the log as written. */
async function sweptWrite(
  write: LogIo<never>['write'],
  sweep: Sweep,
  ...[next, basis, written, committed]: Parameters<LogIo<never>['write']>
): ReturnType<LogIo<never>['write']> {
  const saved = await write(next, basis, written, committed);
  if (saved.ok) await sweep.run(next, basis.rev + 1);
  return saved;
}

/** Random characters (of nanoid's 64) a snapshot key's suffix starts with: made once per instance. */
const NONCE_RANDOM = 10;

/** Suffixes unique in one instance (a count after `random`), and across instances by `random`. */
function counted(random: string): () => string {
  let made = 0;
  return () => `${random}${(made++).toString(36)}`;
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
