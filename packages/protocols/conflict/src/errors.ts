import { ParleyError } from '@parley/core';

/**
 * The codes {@link ConflictError} can carry: API misuse, a host component that broke its contract,
 * or a run the caller cancelled.
 *
 * Use it to build exhaustive handlers or to list the codes in docs. What the model gets wrong is
 * never thrown: it becomes a retry and, past the limit, a {@link ConflictReport}.
 *
 * @example
 * ```ts
 * import { CONFLICT_ERROR_CODES } from '@parley/conflict';
 *
 * console.log(CONFLICT_ERROR_CODES.includes('cancelled')); // true
 * ```
 */
export const CONFLICT_ERROR_CODES = [
  'invalid_argument',
  'cancelled',
  'detector_failed',
  'gate_failed',
  'store_failed',
  'unchecked_tool',
] as const;

/**
 * A code of {@link ConflictError}.
 *
 * @example
 * ```ts
 * import type { ConflictErrorCode } from '@parley/conflict';
 *
 * const code: ConflictErrorCode = 'gate_failed';
 * ```
 */
export type ConflictErrorCode = (typeof CONFLICT_ERROR_CODES)[number];

/**
 * The error `@parley/conflict` throws or rejects with.
 *
 * Check it with `isParleyError(err, code)` rather than `instanceof`. `details.attempts` holds the
 * audit records of a run that ended with `cancelled`, `detector_failed` or `gate_failed`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { ConflictError, createConflictLoop } from '@parley/conflict';
 *
 * try {
 *   createConflictLoop({ maxRetries: -1 });
 * } catch (err) {
 *   console.log(err instanceof ConflictError, isParleyError(err, 'invalid_argument')); // true true
 * }
 * ```
 */
export class ConflictError extends ParleyError<ConflictErrorCode> {}
