import {
  type CompareAndSetResult,
  createEmitter,
  DEFAULT_JSON_LIMITS,
  type Emitter,
  encodeStoreKey,
} from '@parley/core';
import type { Redis } from 'ioredis';
import { isWellFormed, type Layout, layoutOf, WRITE_SCRIPT } from './codec.js';
import { type Connection, connect } from './connection.js';
import { configureExpiry, type Entries, listEntries, readEntry, writeEntry } from './entries.js';
import { RedisStoreError } from './errors.js';
import type { RedisStore, RedisStoreEvents, RedisStoreOptions } from './store-types.js';
import { createWatchHub, type WatchHub } from './watch.js';

/**
 * The SCAN COUNT hint `list` uses unless `scanCount` says otherwise: how many keys Redis looks at
 * per round trip (a hint, not a limit on what `list` yields).
 *
 * @example
 * ```ts
 * import { DEFAULT_SCAN_COUNT } from '@parley/redis';
 *
 * console.log(DEFAULT_SCAN_COUNT); // 1000
 * ```
 */
export const DEFAULT_SCAN_COUNT = 1000;

/**
 * Creates a {@link RedisStore}: the core `Store` kept in Redis, so pending confirmations, requests
 * and flows survive restarts and are shared by every replica of a bot.
 *
 * Every write runs one Lua script that checks the version, writes the value, sets its expiry and
 * publishes the change, atomically. Reads validate what they find. While the connection is down,
 * calls fail at once with `connection_lost`; a watcher is told to resync once it is back.
 *
 * Store keys are written in core's lossless key encoding (`encodeStoreKey`), so keys UTF-8 would
 * merge (lone surrogates) stay distinct; a key without `%`, NUL or surrogates keeps its Redis name.
 *
 * @throws RedisStoreError `invalid_prefix` for an empty prefix or one with a lone surrogate;
 * `invalid_argument` for a `scanCount` that is not an integer from 1 to 1 000 000. Its methods reject with
 * `connection_lost`, `corrupt_value`, `script_failed`, `command_failed` or `store_closed`, and
 * with CoreError `invalid_timeout` (bad `ttlMs`) or a `json_*` code (a value that is not JSON or
 * breaks `jsonLimits`).
 * @example
 * ```ts
 * import type { Redis } from 'ioredis';
 * import { createRedisStore } from '@parley/redis';
 *
 * export async function remember(redis: Redis): Promise<void> {
 *   const store = createRedisStore({ redis, prefix: 'billing-bot:' });
 *   const version = await store.set('confirm:abc', { state: 'pending' }, { ttlMs: 60_000 });
 *   const won = await store.compareAndSet('confirm:abc', version, { state: 'approved' });
 *   console.log(won.ok, await store.get('confirm:abc')); // true { state: 'approved' }
 *   await store.close(); // the client stays open
 * }
 * ```
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { redis, prefix } = options;
  const scanCount = checkOptions(options);
  const layout = layoutOf(prefix);
  const events = createEmitter<RedisStoreEvents>();
  const conn = connect(redis, WRITE_SCRIPT, {
    onState: (state) => events.emit('connection', { connection: 'commands', state }),
  });
  const hub = watchHubOf(redis, layout, conn, events);
  let closed = false;
  let configured = false;
  const store: Entries = {
    redis,
    layout,
    conn,
    events,
    limits: options.jsonLimits ?? DEFAULT_JSON_LIMITS,
    scanCount,
    open() {
      if (closed) throw new RedisStoreError('store_closed', 'The store is closed');
    },
  };

  return {
    prefix,
    async get(key) {
      return (await readEntry(store, key, 'get'))?.value;
    },
    getEntry(key) {
      return readEntry(store, key, 'get');
    },
    async set(key, value, setOptions) {
      const [, version] = await writeEntry(store, key, 'set', null, value, setOptions);
      return Number(version);
    },
    async delete(key) {
      const [, , , existed] = await writeEntry(store, key, 'set', null, undefined, undefined);
      return existed === '1';
    },
    async compareAndSet(key, expectedVersion, value, setOptions): Promise<CompareAndSetResult> {
      const [status, version] = await writeEntry(store, key, 'cas', expectedVersion, value, setOptions);
      if (status === 'ok') return { ok: true, version: Number(version) };
      return { ok: false, version: version === '' || version === undefined ? null : Number(version) };
    },
    list: (listPrefix) => listEntries(store, listPrefix),
    watch(watchPrefix, listener, watchOptions = {}) {
      store.open();
      if (options.configureExpiryEvents === true && !configured) {
        configured = true;
        configureExpiry(store);
      }
      return hub.add(watchPrefix, listener, watchOptions);
    },
    on(event, listener) {
      return events.on(event, listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      hub.close();
      conn.detach();
      events.removeAllListeners();
    },
  };
}

const MAX_SCAN_COUNT = 1_000_000;

/**
 * Checks the prefix and the SCAN COUNT hint; returns the hint.
 *
 * @throws RedisStoreError `invalid_prefix` or `invalid_argument`.
 */
function checkOptions(options: RedisStoreOptions): number {
  const { prefix } = options;
  if (typeof prefix !== 'string' || prefix === '' || !isWellFormed(prefix)) {
    throw new RedisStoreError('invalid_prefix', 'prefix must be a non-empty string without lone surrogates', {
      details: { prefix: typeof prefix === 'string' ? encodeStoreKey(prefix) : String(prefix) },
    });
  }
  const scanCount = options.scanCount ?? DEFAULT_SCAN_COUNT;
  if (!Number.isInteger(scanCount) || scanCount < 1 || scanCount > MAX_SCAN_COUNT) {
    throw new RedisStoreError(
      'invalid_argument',
      `scanCount must be an integer from 1 to ${MAX_SCAN_COUNT}`,
      {
        details: { name: 'scanCount', value: String(scanCount) },
      },
    );
  }
  return scanCount;
}

/** The store's watch hub over its subscriber connection, reporting through the store's events. */
function watchHubOf(
  redis: Redis,
  layout: Layout,
  conn: Connection,
  events: Emitter<RedisStoreEvents>,
): WatchHub {
  return createWatchHub(redis, layout, {
    commandsReady: () => conn.ready(),
    onResync: (reason) => events.emit('resync', { reason }),
    onState: (state) => events.emit('connection', { connection: 'subscriber', state }),
    onError: (error, source) => events.emit('error', { error, source }),
    onMalformed: (channel, message) =>
      events.emit('corrupt', {
        key: channel,
        reason: `unreadable change message "${message.slice(0, 80)}"`,
        source: 'message',
      }),
  });
}
