import type { Clock, IdGenerator, JsonValue, StandardSchemaV1, Store } from '@parley/core';

/**
 * Every code the checkpoints refuse with (as data, never thrown).
 *
 * | code | when |
 * |---|---|
 * | `disabled` | `maxCheckpoints` is 0: nothing is taken and nothing can be rolled back |
 * | `no_checkpoint` | no checkpoint of that id is kept (never taken, or dropped by the cap) |
 * | `not_earlier` | the checkpoint is the latest one: there is nothing to roll back |
 * | `duplicate_id` | `take` with an id already kept for other content (identity is content) |
 * | `nothing_to_undo` | `undo` without a rollback |
 * | `undo_unavailable` | `undo` after a new command committed the rollback as a branch |
 * | `conflict` | the log changed since it was read (another writer, or `ifVersion` is old) |
 * | `corrupt_record` | a stored log or snapshot is not what this package wrote (a log of the format before the kernel included), or fails `stateSchema` |
 * | `record_version` | the stored log has another record format version than this code reads |
 *
 * @example
 * ```ts
 * import { CHECKPOINT_REFUSAL_CODES } from '@parley/checkpoints';
 *
 * console.log(CHECKPOINT_REFUSAL_CODES.includes('undo_unavailable')); // true
 * ```
 */
export const CHECKPOINT_REFUSAL_CODES = [
  'disabled',
  'no_checkpoint',
  'not_earlier',
  'duplicate_id',
  'nothing_to_undo',
  'undo_unavailable',
  'conflict',
  'corrupt_record',
  'record_version',
] as const;

/**
 * A code of {@link CHECKPOINT_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { CheckpointRefusalCode } from '@parley/checkpoints';
 *
 * const code: CheckpointRefusalCode = 'no_checkpoint';
 * ```
 */
export type CheckpointRefusalCode = (typeof CHECKPOINT_REFUSAL_CODES)[number];

/**
 * A refused operation: nothing was written.
 *
 * @example
 * ```ts
 * import type { CheckpointRefusal } from '@parley/checkpoints';
 *
 * const refusal: CheckpointRefusal = { ok: false, code: 'conflict', message: 'the log moved', reason: 'the log moved', version: 4 };
 * ```
 */
export interface CheckpointRefusal {
  readonly ok: false;
  readonly code: CheckpointRefusalCode;
  /** Why nothing was written, in words for a person or a log. */
  readonly message: string;
  /** @deprecated Use `message` (the same text); removed in the next minor version. */
  readonly reason: string;
  /** `conflict`: the version of the log now (`null`: none). */
  readonly version?: number | null;
}

/**
 * One kept checkpoint: its id (a turn id), when it was taken, a label and the key of its snapshot.
 *
 * @example
 * ```ts
 * import type { Checkpoint } from '@parley/checkpoints';
 *
 * const checkpoint: Checkpoint = { id: 'turn_3', at: 1_700_000_000_000, label: 'turn 3', ref: 'game:checkpoint:turn_3' };
 * ```
 */
export interface Checkpoint {
  readonly id: string;
  readonly at: number;
  readonly label: string;
  /** The Store key of the snapshot. */
  readonly ref: string;
}

/**
 * The last rollback: from which checkpoint to which, and whether it can still be undone (only until
 * the next command, which commits it as a new branch).
 *
 * @example
 * ```ts
 * import type { RollbackState } from '@parley/checkpoints';
 *
 * const pending: RollbackState = { fromId: 'turn_9', toId: 'turn_7', canUndo: true };
 * ```
 */
export interface RollbackState {
  readonly fromId: string;
  readonly toId: string;
  readonly canUndo: boolean;
}

/**
 * What the log holds now, with the version every change compares against.
 *
 * @example
 * ```ts
 * import type { CheckpointLog } from '@parley/checkpoints';
 *
 * const latest = (log: CheckpointLog) => log.checkpoints.at(-1)?.id;
 * ```
 */
export interface CheckpointLog {
  /** Oldest first; at most `maxCheckpoints`. */
  readonly checkpoints: readonly Checkpoint[];
  /** The last rollback, `null` before any or after an undo. */
  readonly rollback: RollbackState | null;
  /** The Store version of the log (`null` before the first checkpoint). */
  readonly version: number | null;
}

/**
 * Options of {@link createCheckpoints}.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import type { CheckpointsOptions } from '@parley/checkpoints';
 *
 * const options: CheckpointsOptions = { store: createMemoryStore(), keyPrefix: 'game:1:', maxCheckpoints: 5 };
 * ```
 */
export interface CheckpointsOptions {
  readonly store: Store;
  /** One log per prefix: `<prefix>checkpoints` and `<prefix>checkpoint:<id>`. */
  readonly keyPrefix: string;
  /** Timestamps of checkpoints; the system clock by default. */
  readonly clock?: Clock;
  /**
   * Checkpoints kept (the oldest are dropped), 0 to disable; a function is read at every `take` and
   * `rollback` (a setting that may change). {@link DEFAULT_MAX_CHECKPOINTS} by default, at most
   * {@link MAX_CHECKPOINTS}.
   */
  readonly maxCheckpoints?: number | (() => number | Promise<number>);
  /** Checks every state read back; one that fails is `corrupt_record`. */
  readonly stateSchema?: StandardSchemaV1;
  /**
   * Makes the unique suffix of every snapshot key (so racing writers never share one); by default 10
   * random characters made once per instance (nanoid's alphabet) followed by a count.
   */
  readonly generateId?: IdGenerator;
}

/**
 * A restored state: the checkpoint's (rollback) or the present kept before it (undo).
 *
 * @example
 * ```ts
 * import type { Restored } from '@parley/checkpoints';
 *
 * const hp = (r: Restored<{ hp: number }>) => (r.ok ? r.state.hp : undefined);
 * ```
 */
export type Restored<TState> =
  | {
      readonly ok: true;
      readonly state: TState;
      /** The checkpoint restored (rollback), or the one the rollback started from (undo). */
      readonly id: string;
      readonly log: CheckpointLog;
    }
  | CheckpointRefusal;

/**
 * Checkpoints of one authoritative state in a Store: take one per command, roll back to one,
 * undo the rollback until the next command. States must be plain JSON (an interface of JSON fields
 * is fine; the Store refuses anything else). Every change reads the log and writes it with
 * compare-and-set; nothing is held in memory, so a restarted process sees the same log.
 *
 * @example
 * ```ts
 * import type { Checkpoints } from '@parley/checkpoints';
 *
 * const count = async (checkpoints: Checkpoints<{ hp: number }>) => {
 *   const log = await checkpoints.log();
 *   return log.ok ? log.checkpoints.length : 0;
 * };
 * ```
 */
export interface Checkpoints<TState = JsonValue> {
  /** The log as stored now (refused `corrupt_record` when it is not a log). */
  log(): Promise<({ readonly ok: true } & CheckpointLog) | CheckpointRefusal>;
  /**
   * Keeps `state` as checkpoint `id` and drops the oldest beyond the cap; a rollback still undoable
   * is committed first (a new command ends undo). The same id with the same content is accepted
   * again without a write.
   */
  take(
    id: string,
    state: TState,
    options?: { readonly label?: string },
  ): Promise<
    | {
        readonly ok: true;
        readonly checkpoint: Checkpoint;
        readonly dropped: readonly string[];
        readonly log: CheckpointLog;
      }
    | CheckpointRefusal
  >;
  /** The state of a kept checkpoint. */
  load(id: string): Promise<Restored<TState>>;
  /**
   * Returns the state of an earlier checkpoint for the host to put back, keeping `current` so the
   * rollback can be undone until {@link Checkpoints.commit}. `ifVersion` refuses `conflict` when the
   * log moved since the caller read it.
   */
  rollback(
    id: string,
    current: TState,
    options?: { readonly ifVersion?: number | null },
  ): Promise<Restored<TState>>;
  /** Returns the state kept by the pending rollback and the checkpoints it hid. */
  undo(options?: { readonly ifVersion?: number | null }): Promise<Restored<TState>>;
  /** Ends undo (call it when the next command arrives): the abandoned checkpoints are deleted. */
  commit(): Promise<
    { readonly ok: true; readonly committed: boolean; readonly log: CheckpointLog } | CheckpointRefusal
  >;
}
