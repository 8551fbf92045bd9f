import { ParleyError } from '@parley/core';

/**
 * The codes {@link PostgresStoreError} can carry.
 *
 * @example
 * ```ts
 * import { POSTGRES_STORE_ERROR_CODES } from '@parley/postgres';
 *
 * console.log(POSTGRES_STORE_ERROR_CODES.includes('serialization_failure')); // true
 * ```
 */
export const POSTGRES_STORE_ERROR_CODES = [
  'connection_lost',
  'statement_timeout',
  'serialization_failure',
  'query_failed',
  'corrupt_value',
  'unsupported_format',
  'key_too_long',
  'store_closed',
  'invalid_argument',
] as const;

/**
 * A code of {@link PostgresStoreError}.
 *
 * - `connection_lost`: the database could not be reached, or the connection dropped while the call
 *   was in flight (`details.sent` tells whether the statement may have reached the server; when it
 *   is `true` a write may have committed: re-read before deciding).
 * - `statement_timeout`: the server cancelled the statement (`statement_timeout`, `lock_timeout`);
 *   nothing was written.
 * - `serialization_failure`: the server kept refusing the statement under serializable isolation
 *   or for a deadlock, after the retries; nothing was written.
 * - `query_failed`: the server refused the statement for another reason (`details.sqlstate`: for
 *   example `42501` missing privilege, `42P01` the table was never migrated).
 * - `corrupt_value`: a row holds something this store did not write (JSON refused by the limits).
 * - `unsupported_format`: the table exists but was made by another format of this store (a newer
 *   release): nothing is changed, upgrade the package instead.
 * - `key_too_long`: the key takes more than {@link MAX_KEY_BYTES} bytes once encoded (the index
 *   cannot hold it).
 * - `store_closed`: the call came after `close()` (the same code as core's stores).
 * - `invalid_argument`: `createPostgresStore` was given no database, two, or a bad schema name.
 *
 * @example
 * ```ts
 * import type { PostgresStoreErrorCode } from '@parley/postgres';
 *
 * const code: PostgresStoreErrorCode = 'statement_timeout';
 * ```
 */
export type PostgresStoreErrorCode = (typeof POSTGRES_STORE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/postgres`; check it with `isParleyError(err, 'connection_lost')`.
 *
 * `details.key` names the store key concerned, when there is one, `details.sqlstate` the server's
 * error code, and `cause` holds the driver's error.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { PostgresStoreError } from '@parley/postgres';
 *
 * const err = new PostgresStoreError('connection_lost', 'Postgres is unreachable', { details: { sent: false } });
 * console.log(isParleyError(err, 'connection_lost'), err.details.sent); // true false
 * ```
 */
export class PostgresStoreError extends ParleyError<PostgresStoreErrorCode> {}

/**
 * The longest key a Postgres store takes, in UTF-8 bytes after `encodeStoreKey`: a btree index
 * entry must fit a third of a page, so longer keys are refused (`key_too_long`) instead of failing
 * inside the server.
 *
 * @example
 * ```ts
 * import { MAX_KEY_BYTES } from '@parley/postgres';
 *
 * console.log(MAX_KEY_BYTES); // 2048
 * ```
 */
export const MAX_KEY_BYTES = 2048;
