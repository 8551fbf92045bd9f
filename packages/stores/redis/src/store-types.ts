import type { JsonLimits, Store, StoreChange, Unsubscribe } from '@parley/core';
import type { Redis } from 'ioredis';
import type { RedisWatchOptions, ResyncReason } from './watch.js';

/**
 * Options for {@link createRedisStore}.
 *
 * @example
 * ```ts
 * import type { Redis } from 'ioredis';
 * import type { RedisStoreOptions } from '@parley/redis';
 *
 * function optionsFor(redis: Redis): RedisStoreOptions {
 *   return { redis, prefix: 'billing-bot:', scanCount: 500 };
 * }
 * ```
 */
export interface RedisStoreOptions {
  /** The ioredis client to run commands on. The store never quits it: the caller owns it. */
  readonly redis: Redis;
  /**
   * Starts every Redis key and channel of this store, so several applications share one Redis
   * (`'billing-bot:'`). No application's prefix may be the start of another's. In Redis Cluster,
   * use a hash tag (`'{billing-bot}:'`) so a write's keys share a slot.
   */
  readonly prefix: string;
  /** Limits a stored value must pass when read (and, so nothing unreadable is written, when written). */
  readonly jsonLimits?: JsonLimits;
  /** The COUNT hint of each SCAN that `list` runs: an integer from 1 to 1 000 000; 1000 by default. */
  readonly scanCount?: number;
  /**
   * Turns on Redis keyspace notifications for expired keys (`CONFIG SET notify-keyspace-events`,
   * adding `Ex`) when the first watcher is added, so watchers hear `expire` changes. Off by default:
   * managed Redis often forbids CONFIG, and the server may already be configured.
   */
  readonly configureExpiryEvents?: boolean;
}

/**
 * What a {@link RedisStore} reports besides its return values.
 *
 * @example
 * ```ts
 * import type { RedisStoreEvents } from '@parley/redis';
 *
 * const event: RedisStoreEvents['corrupt'] = { key: 'confirm:abc', reason: 'missing value', source: 'get' };
 * ```
 */
export interface RedisStoreEvents {
  /** A key under the prefix holds something this store did not write; `list` skipped it, `get` threw. */
  corrupt: { key: string; reason: string; source: 'get' | 'list' | 'write' | 'message' };
  /** The change subscription is live (`subscribed`) or live again (`reconnected`): re-read state. */
  resync: { reason: ResyncReason };
  /** The command or the subscriber connection dropped (`lost`) or came back (`ready`). */
  connection: { connection: 'commands' | 'subscriber'; state: 'lost' | 'ready' };
  /** An error no caller could be given: from the subscriber, a watcher that threw, or CONFIG. */
  error: { error: unknown; source: 'subscriber' | 'listener' | 'configure' };
}

/**
 * The core `Store` over Redis, with events and a resync signal on `watch`.
 *
 * @example
 * ```ts
 * import type { RedisStore } from '@parley/redis';
 *
 * function logOutages(store: RedisStore): void {
 *   store.on('connection', ({ connection, state }) => console.log(connection, state));
 * }
 * ```
 */
export interface RedisStore extends Store {
  /** The application prefix every Redis key and channel of this store starts with. */
  readonly prefix: string;
  /**
   * Calls `listener` after any write, delete or (when Redis reports them) expiry of a key starting
   * with `prefix`, made through any store on the same Redis and prefix; `options.onResync` says
   * when changes may have been missed.
   */
  watch(prefix: string, listener: (change: StoreChange) => void, options?: RedisWatchOptions): Unsubscribe;
  /** Adds an event listener; returns a function that removes it. */
  on<K extends keyof RedisStoreEvents & string>(
    event: K,
    listener: (payload: RedisStoreEvents[K]) => void,
  ): Unsubscribe;
}
