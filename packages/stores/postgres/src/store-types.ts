import type { Clock, JsonLimits, Store, StoreChange, StoreWatchOptions, Unsubscribe } from '@parley/core';
import type { PGliteLike, PgQueryable } from './driver.js';
import type { PostgresResyncReason } from './watch.js';

/**
 * Options for {@link createPostgresStore}.
 *
 * @example
 * ```ts
 * import type { Pool } from 'pg';
 * import type { PostgresStoreOptions } from '@parley/postgres';
 *
 * function optionsFor(pool: Pool): PostgresStoreOptions {
 *   return { db: pool, schema: 'billing_bot', sweepIntervalMs: 30_000 };
 * }
 * ```
 */
export interface PostgresStoreOptions {
  /**
   * Where the data lives: a `pg` `Pool` (recommended: `watch` takes one connection of it for
   * LISTEN and gets a new one after an outage), a connected `pg` `Client` (one connection for
   * everything; its LISTEN cannot come back after the client ends), or a PGlite instance (embedded,
   * nothing to install). The store never ends or closes it: the caller owns it.
   */
  readonly db: PgQueryable | PGliteLike;
  /** The schema of the store's table (`store_entries`); `parley` by default. One schema, one store. */
  readonly schema?: string;
  /**
   * Runs {@link postgresStoreMigration} before the first call (idempotent, safe from several
   * processes at once). `false` when the table is created by your own migration tool. True by default.
   */
  readonly migrate?: boolean;
  /** Drives expiry and the sweep: `expires_at` is the clock's time plus `ttlMs`. The system clock by default. */
  readonly clock?: Clock;
  /** Limits a stored value must pass when read (and, so nothing unreadable is written, when written). */
  readonly jsonLimits?: JsonLimits;
  /** How often the background sweep deletes expired rows; 60 000 ms by default, `0` to never sweep. */
  readonly sweepIntervalMs?: number;
  /** The most rows one sweep deletes; 1 000 by default (a full sweep runs again at once). */
  readonly sweepLimit?: number;
  /** Rows per `list` round trip; 500 by default. */
  readonly listPageSize?: number;
  /** The wait before a pool lends the listener a new connection after it dropped; 1 000 ms by default. */
  readonly reconnectMs?: number;
  /** How often a write refused for a serialization failure or deadlock is run again; 3 by default. */
  readonly serializationRetries?: number;
}

/**
 * What a {@link PostgresStore} reports besides its return values.
 *
 * @example
 * ```ts
 * import type { PostgresStoreEvents } from '@parley/postgres';
 *
 * const event: PostgresStoreEvents['swept'] = { count: 120 };
 * ```
 */
export interface PostgresStoreEvents {
  /** A row holds something this store did not write; `list` skipped it, `get` threw. */
  corrupt: { key: string; reason: string; source: 'get' | 'list' };
  /** The LISTEN is live (`subscribed`) or live again (`reconnected`): re-read state. */
  resync: { reason: PostgresResyncReason };
  /** The listening connection dropped (`lost`) or came back (`ready`). */
  connection: { state: 'lost' | 'ready' };
  /** The background sweep deleted expired rows. */
  swept: { count: number };
  /** An error no caller could be given: the listener, a watcher that threw, a failed sweep, a foreign NOTIFY. */
  error: { error: unknown; source: 'listener' | 'watcher' | 'sweep' | 'notification' };
}

/**
 * The core `Store` over Postgres, with events, a resync signal on `watch` and a sweep you can run.
 *
 * @example
 * ```ts
 * import type { PostgresStore } from '@parley/postgres';
 *
 * function logOutages(store: PostgresStore): void {
 *   store.on('connection', ({ state }) => console.log('listener', state));
 * }
 * ```
 */
export interface PostgresStore extends Store {
  /** The schema the store's table lives in. */
  readonly schema: string;
  /**
   * Calls `listener` after any write, delete or swept expiry of a key starting with `prefix`, made
   * through any store on the same database and schema; `options.onResync` says when changes may
   * have been missed.
   */
  watch(prefix: string, listener: (change: StoreChange) => void, options?: StoreWatchOptions): Unsubscribe;
  /** Deletes at most `sweepLimit` expired rows now (watchers hear `expire`); resolves to how many. */
  sweep(): Promise<number>;
  /** Adds an event listener; returns a function that removes it. */
  on<K extends keyof PostgresStoreEvents & string>(
    event: K,
    listener: (payload: PostgresStoreEvents[K]) => void,
  ): Unsubscribe;
}
