import { ParleyError } from '@parley/core';

/**
 * The codes {@link TestingError} can carry.
 *
 * @example
 * ```ts
 * import { TESTING_ERROR_CODES } from '@parley/testing';
 *
 * console.log(TESTING_ERROR_CODES.includes('unscripted_call')); // true
 * ```
 */
export const TESTING_ERROR_CODES = [
  'unscripted_call',
  'assertion_failed',
  'injected_fault',
  'not_connected',
  'no_button',
  'clock_required',
  'invalid_argument',
  'stalled',
] as const;

/**
 * A code of {@link TestingError}.
 *
 * @example
 * ```ts
 * import type { TestingErrorCode } from '@parley/testing';
 *
 * const code: TestingErrorCode = 'assertion_failed';
 * ```
 */
export type TestingErrorCode = (typeof TESTING_ERROR_CODES)[number];

/**
 * The error every fake and assertion of `@parley/testing` throws: an unscripted call, a failed
 * assertion, a fault injected on cue, or a test that drives a fake the wrong way.
 *
 * It is a plain `Error` underneath (with a message that says what was expected and what was
 * found), so vitest, jest and `node:test` all report it as a failure.
 *
 * @example
 * ```ts
 * import { createScriptedModel, TestingError } from '@parley/testing';
 * import { isParleyError } from '@parley/core';
 *
 * const model = createScriptedModel<string>();
 * const error = await model('hello').catch((err: unknown) => err);
 * console.log(error instanceof TestingError, isParleyError(error, 'unscripted_call')); // true true
 * ```
 */
export class TestingError extends ParleyError<TestingErrorCode> {}
