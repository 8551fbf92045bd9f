/**
 * The core `Store` over Postgres (`pg`) or an embedded PGlite: JSON values with per-key versions,
 * TTL enforced on read plus a bounded background sweep, atomic compare-and-set in one statement,
 * prefix listing on the primary key index, and change notification across replicas through
 * LISTEN/NOTIFY with a resync signal after reconnects, so pending flows, requests and
 * confirmations survive restarts and span replicas in the database a host already runs.
 *
 * @packageDocumentation
 * @module @parley/postgres
 */
export { createPostgresStore } from './store.js';
export { migratePostgresStore } from './migrate.js';
export type { PostgresStore, PostgresStoreOptions, PostgresStoreEvents } from './store-types.js';
export { postgresStoreMigration, STORE_FORMAT, DEFAULT_SCHEMA } from './migration.js';
export type { PgQueryable, PGliteLike } from './driver.js';
export type { PostgresResyncReason } from './watch.js';
export { PostgresStoreError, POSTGRES_STORE_ERROR_CODES, MAX_KEY_BYTES } from './errors.js';
export type { PostgresStoreErrorCode } from './errors.js';
