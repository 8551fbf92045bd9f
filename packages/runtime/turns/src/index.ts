/**
 * The turn runner of a model-driven host: per player turn it prepares the request from the
 * authoritative state, runs `@parley/conflict`'s loop with a `@parley/tools` gate, records the turn,
 * commits it once through the core `Store` and takes a `@parley/checkpoints` checkpoint, with
 * rollback, undo, exactly-once submissions and recovery after a restart.
 *
 * @packageDocumentation
 * @module @parley/turns
 */
export { createTurnRunner } from './runner.js';
export type { TurnRunner } from './runner-types.js';
export {
  TurnsError,
  TURNS_ERROR_CODES,
  DEFAULT_TURN_TIMEOUT_MS,
  DEFAULT_JOURNAL_TTL_MS,
} from './errors.js';
export type { TurnsErrorCode } from './errors.js';
export { TURN_REFUSAL_CODES, MAX_KEY_LENGTH, MAX_INPUT_LENGTH } from './refusals.js';
export type { TurnRefusalCode, TurnRefusal } from './refusals.js';
export type {
  TurnCheckpoint,
  TurnStart,
  TurnPlan,
  TurnRunnerOptions,
  TurnResult,
  TurnCheckpointResult,
  TurnOpenResult,
  TurnRunnerEvents,
} from './types.js';
export type { OpenResult } from './former-names.js';
