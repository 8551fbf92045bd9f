import { ParleyError } from '@parley/core';

/**
 * The codes {@link ConsoleError} can carry: a bad option given to `createConsole` or `startConsole`.
 *
 * @example
 * ```ts
 * import { CONSOLE_ERROR_CODES } from '@parley/console';
 *
 * console.log(CONSOLE_ERROR_CODES); // [ 'invalid_argument' ]
 * ```
 */
export const CONSOLE_ERROR_CODES = ['invalid_argument'] as const;

/**
 * A code of {@link ConsoleError}.
 *
 * @example
 * ```ts
 * import type { ConsoleErrorCode } from '@parley/console';
 *
 * const code: ConsoleErrorCode = 'invalid_argument';
 * ```
 */
export type ConsoleErrorCode = (typeof CONSOLE_ERROR_CODES)[number];

/**
 * The codes of a request the console refuses, with its HTTP status: `unauthenticated` (401),
 * `invalid_argument` (400, a bad cursor), `not_found` (404), `method_not_allowed` (405, anything but
 * GET and HEAD: the console is read-only) and `store_failed` (500). The JSON variant of a refusal is
 * `{ ok: false, code, message }`.
 *
 * @example
 * ```ts
 * import { CONSOLE_REFUSAL_CODES } from '@parley/console';
 *
 * console.log(CONSOLE_REFUSAL_CODES.includes('unauthenticated')); // true
 * ```
 */
export const CONSOLE_REFUSAL_CODES = [
  'unauthenticated',
  'invalid_argument',
  'not_found',
  'method_not_allowed',
  'store_failed',
] as const;

/**
 * A code of {@link CONSOLE_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { ConsoleRefusalCode } from '@parley/console';
 *
 * const code: ConsoleRefusalCode = 'not_found';
 * ```
 */
export type ConsoleRefusalCode = (typeof CONSOLE_REFUSAL_CODES)[number];

/**
 * The error `@parley/console` throws: a bad option (`invalid_argument`). A refused request is an
 * HTTP answer, never an error.
 *
 * @example
 * ```ts
 * import { createConsole } from '@parley/console';
 * import { createMemoryStore, isParleyError } from '@parley/core';
 *
 * try {
 *   createConsole({ store: createMemoryStore(), pageSize: 0 });
 * } catch (err) {
 *   console.log(isParleyError(err, 'invalid_argument')); // true
 * }
 * ```
 */
export class ConsoleError extends ParleyError<ConsoleErrorCode> {}
