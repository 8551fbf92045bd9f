import { ParleyError } from '@parley/core';

/**
 * The codes {@link RedisStoreError} can carry.
 *
 * @example
 * ```ts
 * import { REDIS_STORE_ERROR_CODES } from '@parley/redis';
 *
 * console.log(REDIS_STORE_ERROR_CODES.includes('connection_lost')); // true
 * ```
 */
export const REDIS_STORE_ERROR_CODES = [
  'connection_lost',
  'corrupt_value',
  'script_failed',
  'command_failed',
  'store_closed',
  'invalid_prefix',
  'invalid_argument',
] as const;

/**
 * A code of {@link RedisStoreError}.
 *
 * - `connection_lost`: Redis could not be reached, or the connection dropped while the call was
 *   in flight (`details.sent` tells whether the command may have reached Redis).
 * - `corrupt_value`: the key holds something this store did not write (wrong type, missing or
 *   malformed version, JSON refused by the read limits).
 * - `script_failed`: Redis refused to run a write script (for example `OOM`, `READONLY`, `NOPERM`).
 * - `command_failed`: Redis refused a read or a scan.
 * - `store_closed`: the call came after `close()` (the same code as core's stores).
 * - `invalid_prefix`: `createRedisStore` was given an empty or non-string prefix, or one with a
 *   lone surrogate (UTF-8 cannot keep it, so two such prefixes would share one key space).
 * - `invalid_argument`: `createRedisStore` was given a `scanCount` that is not an integer from 1 to
 *   1 000 000.
 *
 * @example
 * ```ts
 * import type { RedisStoreErrorCode } from '@parley/redis';
 *
 * const code: RedisStoreErrorCode = 'corrupt_value';
 * ```
 */
export type RedisStoreErrorCode = (typeof REDIS_STORE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/redis`; check it with `isParleyError(err, 'connection_lost')`.
 *
 * `details.key` names the store key concerned, when there is one, and `cause` holds the ioredis
 * error.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { RedisStoreError } from '@parley/redis';
 *
 * const err = new RedisStoreError('connection_lost', 'Redis is unreachable', { details: { sent: false } });
 * console.log(isParleyError(err, 'connection_lost'), err.details.sent); // true false
 * ```
 */
export class RedisStoreError extends ParleyError<RedisStoreErrorCode> {}
