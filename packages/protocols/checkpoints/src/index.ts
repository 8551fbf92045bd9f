/**
 * Checkpoints of authoritative state in a Store: take one per command, roll back to an earlier one,
 * undo the rollback until the next command. Bounded, compare-and-set safe, checked on every read.
 *
 * @packageDocumentation
 * @module @parley/checkpoints
 */
export { createCheckpoints } from './checkpoints.js';
export { bindCheckpoints } from './bound.js';
export type { BindCheckpointsOptions, BoundCheckpoints } from './bound.js';
export {
  CheckpointsError,
  CHECKPOINTS_ERROR_CODES,
  DEFAULT_MAX_CHECKPOINTS,
  MAX_CHECKPOINTS,
} from './errors.js';
export type { CheckpointsErrorCode } from './errors.js';
export { CHECKPOINT_REFUSAL_CODES } from './types.js';
export type {
  Checkpoint,
  CheckpointLog,
  CheckpointRefusal,
  CheckpointRefusalCode,
  Checkpoints,
  CheckpointsOptions,
  Restored,
  RollbackState,
} from './types.js';
