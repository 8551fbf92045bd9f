/**
 * The core `Store` over Redis (ioredis): JSON values with per-key versions, TTL, atomic
 * compare-and-set in Lua, SCAN listing, and change notification across replicas through pub/sub
 * with a resync signal after reconnects, so pending flows, requests and confirmations survive
 * restarts and span replicas.
 *
 * @packageDocumentation
 * @module @parley/redis
 */
export { createRedisStore, DEFAULT_SCAN_COUNT } from './store.js';
export type { RedisStore, RedisStoreOptions, RedisStoreEvents } from './store-types.js';
export type { RedisWatchOptions, ResyncReason } from './watch.js';
export { RedisStoreError, REDIS_STORE_ERROR_CODES } from './errors.js';
export type { RedisStoreErrorCode } from './errors.js';
