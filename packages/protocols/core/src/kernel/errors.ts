import { ParleyError } from '../errors.js';

/**
 * The codes {@link KernelError} can carry.
 *
 * @example
 * ```ts
 * import { KERNEL_ERROR_CODES } from '@parley/core';
 *
 * console.log(KERNEL_ERROR_CODES.includes('record_version')); // true
 * ```
 */
export const KERNEL_ERROR_CODES = [
  'corrupt_record',
  'record_version',
  'store_failed',
  'invalid_argument',
  'effects_runaway',
] as const;

/**
 * A code of {@link KernelError}.
 *
 * @example
 * ```ts
 * import type { KernelErrorCode } from '@parley/core';
 *
 * const code: KernelErrorCode = 'corrupt_record';
 * ```
 */
export type KernelErrorCode = (typeof KERNEL_ERROR_CODES)[number];

/**
 * The error the durable kernel throws: a stored record it cannot read (`corrupt_record`,
 * `record_version`), a store that failed on a read, a bad argument, or effects that never settle.
 *
 * @example
 * ```ts
 * import { KernelError, isParleyError } from '@parley/core';
 *
 * const err = new KernelError('record_version', 'run:1 has format 2, this code reads 1');
 * console.log(isParleyError(err, 'record_version')); // true
 * ```
 */
export class KernelError extends ParleyError<KernelErrorCode> {}
