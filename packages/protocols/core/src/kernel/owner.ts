import { generateId } from '../ids.js';

/**
 * Returns a new unique owner id, `${prefix}-${nanoid}`, for a kernel, a runner or a worker.
 *
 * Use it as the default of every `owner` / `runnerId` option: two processes must never share an
 * owner id, or each takes the other's leases as its own.
 *
 * @example
 * ```ts
 * import { createOwnerId } from '@parley/core';
 *
 * const id = createOwnerId('runner'); // e.g. 'runner-V1StGXR8_Z5jdHi6B-myT'
 * console.log(id.startsWith('runner-'), id !== createOwnerId('runner')); // true true
 * ```
 */
export function createOwnerId(prefix = 'owner'): string {
  return `${prefix}-${generateId()}`;
}
