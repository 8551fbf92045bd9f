import { ParleyError } from '@parley/core';

/**
 * The codes {@link CheckpointsError} can carry: misuse of the API.
 *
 * @example
 * ```ts
 * import { CHECKPOINTS_ERROR_CODES } from '@parley/checkpoints';
 *
 * console.log(CHECKPOINTS_ERROR_CODES); // [ 'invalid_argument' ]
 * ```
 */
export const CHECKPOINTS_ERROR_CODES = ['invalid_argument', 'store_failed'] as const;

/**
 * A code of {@link CheckpointsError}.
 *
 * @example
 * ```ts
 * import type { CheckpointsErrorCode } from '@parley/checkpoints';
 *
 * const code: CheckpointsErrorCode = 'invalid_argument';
 * ```
 */
export type CheckpointsErrorCode = (typeof CHECKPOINTS_ERROR_CODES)[number];

/**
 * The error `@parley/checkpoints` throws when it is misused (a `maxCheckpoints` that is not an
 * integer in 0…{@link MAX_CHECKPOINTS}, an empty key prefix). Everything else is refused as data.
 *
 * @example
 * ```ts
 * import { createMemoryStore, isParleyError } from '@parley/core';
 * import { createCheckpoints } from '@parley/checkpoints';
 *
 * try {
 *   createCheckpoints({ store: createMemoryStore(), keyPrefix: 'game:', maxCheckpoints: -1 });
 * } catch (err) {
 *   console.log(isParleyError(err, 'invalid_argument')); // true
 * }
 * ```
 */
export class CheckpointsError extends ParleyError<CheckpointsErrorCode> {}

/**
 * The most checkpoints a log may keep, whatever `maxCheckpoints` says.
 *
 * @example
 * ```ts
 * import { MAX_CHECKPOINTS } from '@parley/checkpoints';
 *
 * console.log(MAX_CHECKPOINTS); // 1000
 * ```
 */
export const MAX_CHECKPOINTS = 1_000;

/**
 * Checkpoints kept when `maxCheckpoints` is not given.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_CHECKPOINTS } from '@parley/checkpoints';
 *
 * console.log(DEFAULT_MAX_CHECKPOINTS); // 20
 * ```
 */
export const DEFAULT_MAX_CHECKPOINTS = 20;
