import { ParleyError } from '@parley/core';

/**
 * The codes {@link ConfirmError} can carry.
 *
 * @example
 * ```ts
 * import { CONFIRM_ERROR_CODES } from '@parley/confirm';
 *
 * console.log(CONFIRM_ERROR_CODES.includes('closed')); // true
 * ```
 */
export const CONFIRM_ERROR_CODES = [
  'closed',
  'invalid_argument',
  'invalid_action',
  'invalid_vocabulary',
  'corrupt_record',
  'record_version',
  'store_failed',
  'not_recorded',
] as const;

/**
 * A code of {@link ConfirmError}.
 *
 * @example
 * ```ts
 * import type { ConfirmErrorCode } from '@parley/confirm';
 *
 * const code: ConfirmErrorCode = 'invalid_action';
 * ```
 */
export type ConfirmErrorCode = (typeof CONFIRM_ERROR_CODES)[number];

/**
 * The error `@parley/confirm` throws or rejects with when it is misused: a request on a closed
 * gate, a malformed request or action, a vocabulary whose words overlap. What users reply is
 * never an error: it becomes a decision. `corrupt_record` is never thrown: it is reported as an
 * `error` event for a stored record the gate could not read, which it then leaves out of deciding.
 *
 * @example
 * ```ts
 * import { defineVocabulary } from '@parley/confirm';
 * import { isParleyError } from '@parley/core';
 *
 * try {
 *   defineVocabulary({ confirm: ['ok'], cancel: ['OK'] });
 * } catch (err) {
 *   console.log(isParleyError(err, 'invalid_vocabulary')); // true
 * }
 * ```
 */
export class ConfirmError extends ParleyError<ConfirmErrorCode> {}
