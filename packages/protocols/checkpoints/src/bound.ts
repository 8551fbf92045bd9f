import type { CheckpointLog, Checkpoints } from './types.js';

/**
 * Options of {@link bindCheckpoints}: the checkpoints and how the host reads and puts back its state.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { type BindCheckpointsOptions, createCheckpoints } from '@parley/checkpoints';
 *
 * let hp = 10;
 * const options: BindCheckpointsOptions<number> = {
 *   checkpoints: createCheckpoints<number>({ store: createMemoryStore(), keyPrefix: 'game:' }),
 *   capture: () => hp,
 *   restore: (state) => {
 *     hp = state;
 *   },
 * };
 * ```
 */
export interface BindCheckpointsOptions<TState> {
  readonly checkpoints: Checkpoints<TState>;
  /** Reads the host's state as it is now: the checkpoint `take` stores, the present `rollback` keeps. */
  readonly capture: () => TState;
  /**
   * Puts a state back after `rollback` or `undo`. A rollback calls it before the log moves (a throw
   * rejects with its error and the log stays as it was); an undo calls it after the log moved (a
   * throw rejects with its error, and the log keeps the undo).
   */
  readonly restore: (state: TState) => void | Promise<void>;
  /** Sees the log after every change (take, rollback, undo, a commit that ended a rollback). */
  readonly onLog?: (log: CheckpointLog) => void;
}

/**
 * {@link Checkpoints} bound to the host's state: the same calls and results, without passing the
 * state around.
 *
 * @example
 * ```ts
 * import type { BoundCheckpoints } from '@parley/checkpoints';
 *
 * async function undoLast(checkpoints: BoundCheckpoints<number>): Promise<string> {
 *   const undone = await checkpoints.undo();
 *   return undone.ok ? `back to ${undone.id}` : undone.code;
 * }
 * ```
 */
export interface BoundCheckpoints<TState> {
  /** The log as stored (see {@link Checkpoints.log}). */
  log: Checkpoints<TState>['log'];
  /** Takes a checkpoint of `capture()` under `id` (commits a pending rollback first). */
  take(id: string, options?: { readonly label?: string }): ReturnType<Checkpoints<TState>['take']>;
  /** Rolls back to `id`, keeping `capture()` as the present, and `restore`s the earlier state. */
  rollback(
    id: string,
    options?: { readonly ifVersion?: number | null },
  ): ReturnType<Checkpoints<TState>['rollback']>;
  /** Undoes a pending rollback and `restore`s the present it kept. */
  undo(options?: { readonly ifVersion?: number | null }): ReturnType<Checkpoints<TState>['undo']>;
  /** The next command arrived: a pending rollback becomes the branch (undo is no longer possible). */
  commit: Checkpoints<TState>['commit'];
}

/**
 * Binds checkpoints to the state they keep: `take` captures it, `rollback` and `undo` restore it,
 * and `onLog` mirrors every change of the log into the host's own records (a campaign's checkpoint
 * list, a "rollback pending" flag). Refusals come back as from {@link Checkpoints}; nothing is
 * captured or restored when a call is refused.
 *
 * Use it when a host keeps its state in memory and wants "roll back to turn 7" and "undo" as one
 * call each, instead of writing the capture/restore glue around every checkpoint call.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { bindCheckpoints, createCheckpoints } from '@parley/checkpoints';
 *
 * let party = { hp: 18, at: 'old_road' };
 * const checkpoints = bindCheckpoints({
 *   checkpoints: createCheckpoints<typeof party>({ store: createMemoryStore(), keyPrefix: 'campaign:1:' }),
 *   capture: () => party,
 *   restore: (state) => {
 *     party = state;
 *   },
 *   onLog: (log) => console.log(log.checkpoints.length, log.rollback?.canUndo ?? false),
 * });
 * await checkpoints.take('turn_1'); // 1 false
 * party = { hp: 12, at: 'ruined_keep' };
 * await checkpoints.take('turn_2'); // 2 false
 * await checkpoints.rollback('turn_1'); // 1 true
 * console.log(party); // { hp: 18, at: 'old_road' }
 * await checkpoints.undo(); // 2 false
 * console.log(party); // { hp: 12, at: 'ruined_keep' }
 * ```
 */
export function bindCheckpoints<TState>(options: BindCheckpointsOptions<TState>): BoundCheckpoints<TState> {
  const { checkpoints, capture, restore, onLog } = options;
  return {
    log: () => checkpoints.log(),
    async take(id, takeOptions) {
      const taken = await checkpoints.take(id, capture(), takeOptions);
      if (taken.ok) onLog?.(taken.log);
      return taken;
    },
    async rollback(id, rollbackOptions) {
      // the host gets the kept state before the log moves: a restore that throws changes nothing
      const present = capture();
      const kept = await checkpoints.load(id);
      const ifVersion = rollbackOptions?.ifVersion ?? (kept.ok ? kept.log.version : undefined);
      if (kept.ok) await restore(kept.state);
      const back = await checkpoints.rollback(id, present, ifVersion === undefined ? {} : { ifVersion });
      if (!back.ok) {
        if (kept.ok) await restore(present); // refused after all: the host's own state back
        return back;
      }
      onLog?.(back.log);
      return back;
    },
    async undo(undoOptions) {
      const undone = await checkpoints.undo(undoOptions);
      if (!undone.ok) return undone;
      await restore(undone.state);
      onLog?.(undone.log);
      return undone;
    },
    async commit() {
      const commit = await checkpoints.commit();
      if (commit.ok && commit.committed) onLog?.(commit.log);
      return commit;
    },
  };
}
