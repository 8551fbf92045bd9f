import type { CheckpointLog, CheckpointRefusal, Restored } from '@parley/checkpoints';
import type { Unsubscribe } from '@parley/core';
import type { TurnRefusal } from './refusals.js';
import type { TurnOpenResult, TurnCheckpoint, TurnResult, TurnRunnerEvents } from './types.js';

/**
 * A turn runner made by {@link createTurnRunner}.
 *
 * @example
 * ```ts
 * import type { TurnRunner } from '@parley/turns';
 *
 * async function play(runner: TurnRunner<string, { hp: number }, string, string, null>, line: string) {
 *   const result = await runner.run(line);
 *   return result.ok ? result.record : `refused (${result.code})`;
 * }
 * ```
 */
export interface TurnRunner<TInput, TState, TRecord, TRequest, TData, THostCode extends string = never> {
  /**
   * Starts the runner: a fresh one writes its head and the first checkpoint (`label`, `start` by
   * default); otherwise the stored present is put back into the host, a turn left open by a dead
   * process is dropped once its deadline passed (at once with `takeOver`, for a single process
   * that knows it restarted), and writes a crash missed are done now.
   *
   * @throws TurnsError `corrupt_record` when the stored head is not a runner's.
   */
  open(options?: { readonly label?: string; readonly takeOver?: boolean }): Promise<TurnOpenResult>;
  /**
   * Runs one turn. With a `key` (a chat message id), a repeated submission is answered from the
   * journal and never runs twice; the same key with other input is refused `key_reused`; without
   * one, the turn is not deduplicated (its id is its key until the next turn). Inputs are
   * plain JSON. `signal` cancels the conflict loop (the turn then fails and nothing is committed).
   *
   * @throws TurnsError `not_opened` before `open`; `turn_failed` when a hook, the model wrapper, the
   * gate or a store write threw (nothing was committed; the host state is back at the last commit).
   */
  run(
    input: TInput,
    options?: { readonly key?: string; readonly signal?: AbortSignal },
  ): Promise<TurnResult<TRecord, TRequest, TData, THostCode>>;
  /**
   * Rolls back to the checkpoint of an earlier turn and puts its state back; undoable until the next
   * turn. Refused `busy` while a turn runs.
   *
   * @throws TurnsError `not_opened`; `conflict` when another writer moved the head meanwhile.
   */
  rollback(
    turnId: string,
    options?: { readonly ifVersion?: number | null },
  ): Promise<Restored<TurnCheckpoint<TState>> | TurnRefusal>;
  /**
   * Undoes a pending rollback and puts the present it kept back.
   *
   * @throws TurnsError `not_opened`; `conflict` when another writer moved the head meanwhile.
   */
  undo(options?: {
    readonly ifVersion?: number | null;
  }): Promise<Restored<TurnCheckpoint<TState>> | TurnRefusal>;
  /** The checkpoint log as stored. */
  log(): Promise<({ readonly ok: true } & CheckpointLog) | CheckpointRefusal>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof TurnRunnerEvents & string>(
    event: K,
    listener: (payload: TurnRunnerEvents[K]) => void,
  ): Unsubscribe;
}
