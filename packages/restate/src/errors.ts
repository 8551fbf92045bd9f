import { ParleyError } from '@parley/core';

/**
 * The codes {@link ParleyRestateError} can carry.
 *
 * @example
 * ```ts
 * import { RESTATE_ERROR_CODES } from '@parley/restate';
 *
 * console.log(RESTATE_ERROR_CODES.includes('invalid_options')); // true
 * ```
 */
export const RESTATE_ERROR_CODES = ['invalid_options', 'forged_wakeups'] as const;

/**
 * A code of {@link ParleyRestateError}.
 *
 * - `invalid_options`: a `define…` function was given a bad name, no protocols, two protocols of one
 *   name, or a bad `maxWatchers`.
 * - `forged_wakeups`: a waiter was woken `maxWakeups` times without the stored record being final
 *   (someone keeps resolving its awakeable by hand); the wait gives up rather than trusting them.
 *
 * @example
 * ```ts
 * import type { RestateErrorCode } from '@parley/restate';
 *
 * const code: RestateErrorCode = 'invalid_options';
 * ```
 */
export type RestateErrorCode = (typeof RESTATE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/restate`; check it with `isParleyError(err, 'invalid_options')`.
 * Inside a Restate handler it is thrown as a Restate `TerminalError` carrying the same text, so the
 * invocation is not retried.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { ParleyRestateError } from '@parley/restate';
 *
 * const err = new ParleyRestateError('invalid_options', 'name must be a non-empty string');
 * console.log(isParleyError(err, 'invalid_options')); // true
 * ```
 */
export class ParleyRestateError extends ParleyError<RestateErrorCode> {}
