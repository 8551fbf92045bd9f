import { ParleyError } from '@parley/core';

/**
 * The codes {@link ParleyRestateError} can carry.
 *
 * @example
 * ```ts
 * import { RESTATE_ERROR_CODES } from '@parley/restate';
 *
 * console.log(RESTATE_ERROR_CODES.includes('invalid_argument')); // true
 * ```
 */
export const RESTATE_ERROR_CODES = [
  'invalid_argument',
  'forged_wakeups',
  'unknown_request',
  'too_many_watchers',
  'unknown_confirmation',
  'server_missing',
  'server_failed',
  'register_failed',
] as const;

/**
 * A code of {@link ParleyRestateError}.
 *
 * - `invalid_argument`: a `define…` function was given a bad name, no protocols, two protocols of one
 *   name, or a bad `maxWatchers`.
 * - `forged_wakeups`: a waiter was woken `maxWakeups` times without the stored record being final
 *   (someone keeps resolving its awakeable by hand); the wait gives up rather than trusting them.
 * - `unknown_request`: {@link awaitRequest} was asked to wait for a request that was never opened.
 * - `too_many_watchers`: {@link awaitRequest} found the request with `maxWatchers` waiters already
 *   (or {@link awaitConfirmation} the confirmation with 64).
 * - `unknown_confirmation`: {@link awaitConfirmation} was asked to wait for a confirmation never requested.
 * - `server_missing`: `@parley/restate/testing` found no `restate-server` binary for this platform.
 * - `server_failed`: the local server exited, was not healthy in time, or its admin API failed.
 * - `register_failed`: the endpoint refused the server's discovery (a wrong identity key, a broken endpoint).
 *
 * @example
 * ```ts
 * import type { RestateErrorCode } from '@parley/restate';
 *
 * const code: RestateErrorCode = 'invalid_argument';
 * ```
 */
export type RestateErrorCode = (typeof RESTATE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/restate`; check it with `isParleyError(err, 'invalid_argument')`.
 * Inside a Restate handler ({@link awaitRequest}) it is the `cause` of the Restate `TerminalError`
 * actually thrown (message `<code>: <text>`), so the invocation fails for good instead of being
 * retried.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { ParleyRestateError } from '@parley/restate';
 *
 * const err = new ParleyRestateError('invalid_argument', 'name must be a non-empty string');
 * console.log(isParleyError(err, 'invalid_argument')); // true
 * ```
 */
export class ParleyRestateError extends ParleyError<RestateErrorCode> {}
