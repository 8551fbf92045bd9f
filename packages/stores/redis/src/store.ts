import {
  assertTtlMs,
  type CompareAndSetResult,
  createEmitter,
  DEFAULT_JSON_LIMITS,
  encodeStoreKey,
  type JsonValue,
  type StoreEntry,
  type StoreSetOptions,
  stringifyJson,
} from '@parley/core';
import {
  decodeEntry,
  escapeGlob,
  isWellFormed,
  layoutOf,
  redisKeyOf,
  storeKeyOf,
  WRITE_SCRIPT,
} from './codec.js';
import { connect } from './connection.js';
import { RedisStoreError } from './errors.js';
import type { RedisStore, RedisStoreEvents, RedisStoreOptions } from './store-types.js';
import { createWatchHub } from './watch.js';

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
  if (typeof prefix !== 'string' || prefix === '' || !isWellFormed(prefix)) {
    throw new RedisStoreError('invalid_prefix', 'prefix must be a non-empty string without lone surrogates', {
      details: { prefix: typeof prefix === 'string' ? encodeStoreKey(prefix) : String(prefix) },
    });
  }
  const limits = options.jsonLimits ?? DEFAULT_JSON_LIMITS;
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
  const layout = layoutOf(prefix);
  const events = createEmitter<RedisStoreEvents>();
  const conn = connect(redis, WRITE_SCRIPT, {
    onState: (state) => events.emit('connection', { connection: 'commands', state }),
  });
  const hub = createWatchHub(redis, layout, {
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
  let closed = false;
  let configured = false;

  function open(): void {
    if (closed) throw new RedisStoreError('store_closed', 'The store is closed');
  }

  async function read(
    key: string,
    source: 'get' | 'list',
    redisKey = redisKeyOf(layout, key),
  ): Promise<StoreEntry | undefined> {
    open();
    const hash = await conn
      .run(() => redis.hgetall(redisKey), 'command_failed', { key })
      .catch((error: unknown) => {
        if (error instanceof RedisStoreError && error.code === 'corrupt_value') {
          events.emit('corrupt', { key, reason: 'wrong type', source });
        }
        throw error;
      });
    const decoded = decodeEntry(key, hash, limits);
    if (decoded.ok) return decoded.entry;
    events.emit('corrupt', { key, reason: decoded.reason, source });
    throw new RedisStoreError(
      'corrupt_value',
      `The key "${key}" holds an unreadable value: ${decoded.reason}`,
      {
        details: { key, reason: decoded.reason },
      },
    );
  }

  async function write(
    key: string,
    mode: 'set' | 'cas',
    expected: number | null,
    value: JsonValue | undefined,
    setOptions: StoreSetOptions | undefined,
  ): Promise<readonly string[]> {
    open();
    const json = value === undefined ? '' : stringifyJson(value, limits);
    const ttl =
      value === undefined || setOptions?.ttlMs === undefined
        ? ''
        : String(Math.ceil(assertTtlMs(setOptions.ttlMs)));
    const redisKey = redisKeyOf(layout, key);
    const result = await conn.script(
      [redisKey, layout.version],
      [
        mode,
        expected === null ? '' : String(expected),
        json,
        ttl,
        layout.changes,
        redisKey.slice(layout.data.length),
      ],
      { key },
    );
    if (result[0] === 'corrupt') {
      events.emit('corrupt', { key, reason: `holds a ${result[1]}`, source: 'write' });
      throw new RedisStoreError('corrupt_value', `The key "${key}" does not hold a value of this store`, {
        details: { key, reason: `holds a ${result[1]}` },
      });
    }
    return result;
  }

  function configureExpiry(): void {
    configured = true;
    conn
      .run(async () => {
        const [, flags = ''] = (await redis.config('GET', 'notify-keyspace-events')) as string[];
        let add = flags.includes('E') ? '' : 'E';
        if (!flags.includes('x') && !flags.includes('A')) add += 'x';
        if (add !== '') await redis.config('SET', 'notify-keyspace-events', flags + add);
      }, 'command_failed')
      .catch((error: unknown) => events.emit('error', { error, source: 'configure' }));
  }

  return {
    prefix,
    async get(key) {
      return (await read(key, 'get'))?.value;
    },
    getEntry(key) {
      return read(key, 'get');
    },
    async set(key, value, setOptions) {
      const [, version] = await write(key, 'set', null, value, setOptions);
      return Number(version);
    },
    async delete(key) {
      const [, , , existed] = await write(key, 'set', null, undefined, undefined);
      return existed === '1';
    },
    async compareAndSet(key, expectedVersion, value, setOptions): Promise<CompareAndSetResult> {
      const [status, version] = await write(key, 'cas', expectedVersion, value, setOptions);
      if (status === 'ok') return { ok: true, version: Number(version) };
      return { ok: false, version: version === '' || version === undefined ? null : Number(version) };
    },
    async *list(listPrefix) {
      open();
      // The encoding keeps prefixes, so the encoded list prefix matches exactly the keys it starts.
      const match = `${escapeGlob(redisKeyOf(layout, listPrefix))}*`;
      const seen = new Set<string>(); // SCAN may return a key more than once
      let cursor = '0';
      do {
        const from = cursor;
        const [next, keys] = await conn.run(
          () => redis.scan(from, 'MATCH', match, 'COUNT', scanCount),
          'command_failed',
          { match },
        );
        cursor = next;
        const batch = [...new Set(keys)].filter((redisKey) => !seen.has(redisKey));
        for (const redisKey of batch) seen.add(redisKey);
        for (const redisKey of batch) {
          const encoded = redisKey.slice(layout.data.length);
          const key = storeKeyOf(encoded);
          if (key === undefined) {
            events.emit('corrupt', { key: encoded, reason: LEGACY_KEY, source: 'list' });
            continue;
          }
          // Each entry is read as it is yielded, so one deleted meanwhile is skipped, not replayed.
          const entry = await read(key, 'list', redisKey).catch((error: unknown) => {
            if (error instanceof RedisStoreError && error.code === 'corrupt_value') return undefined;
            throw error;
          });
          if (entry !== undefined) yield entry;
        }
      } while (cursor !== '0');
    },
    watch(watchPrefix, listener, watchOptions = {}) {
      open();
      if (options.configureExpiryEvents === true && !configured) configureExpiry();
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

/** Why `list` skips a key name this store cannot have written (see the README on key encoding). */
const LEGACY_KEY = 'key name not in the store key encoding (written before keys were encoded?)';
