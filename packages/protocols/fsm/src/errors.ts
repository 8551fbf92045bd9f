import { ParleyError } from '@parley/core';

/**
 * The codes {@link FsmError} can carry: misuse of the API and snapshots that cannot be restored.
 *
 * @example
 * ```ts
 * import { FSM_ERROR_CODES } from '@parley/fsm';
 *
 * console.log(FSM_ERROR_CODES.includes('version_mismatch')); // true
 * ```
 */
export const FSM_ERROR_CODES = [
  'invalid_definition',
  'invalid_snapshot',
  'wrong_machine',
  'version_mismatch',
  'migration_failed',
  'unknown_state',
  'invalid_context',
  'invalid_fields',
] as const;

/**
 * A code of {@link FsmError}.
 *
 * @example
 * ```ts
 * import type { FsmErrorCode } from '@parley/fsm';
 *
 * const code: FsmErrorCode = 'unknown_state';
 * ```
 */
export type FsmErrorCode = (typeof FSM_ERROR_CODES)[number];

/**
 * The error `@parley/fsm` throws when it is misused: an invalid machine or flow definition, or a
 * snapshot that cannot be restored (never half-loaded). Events and submissions are never errors:
 * they are refused as data.
 *
 * @example
 * ```ts
 * import { defineMachine, FsmError } from '@parley/fsm';
 * import { isParleyError } from '@parley/core';
 *
 * try {
 *   defineMachine({ id: 'm', version: 1, initial: 'nowhere' as 'a', context: {}, states: { a: {} } });
 * } catch (err) {
 *   console.log(err instanceof FsmError, isParleyError(err, 'invalid_definition')); // true true
 * }
 * ```
 */
export class FsmError extends ParleyError<FsmErrorCode> {}
