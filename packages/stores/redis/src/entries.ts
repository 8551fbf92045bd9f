// The store's operations on its entries in Redis: read one, write one by script, list by SCAN.
import {
  assertTtlMs,
  type Emitter,
  type JsonLimits,
  type JsonValue,
  type StoreEntry,
  type StoreSetOptions,
  stringifyJson,
} from '@parley/core';
import type { Redis } from 'ioredis';
import { decodeEntry, escapeGlob, type Layout, redisKeyOf, storeKeyOf } from './codec.js';
import type { Connection } from './connection.js';
import { RedisStoreError } from './errors.js';
import type { RedisStoreEvents } from './store-types.js';

/** @internal What a Redis store's operations work with. */
export interface Entries {
  readonly redis: Redis;
  readonly layout: Layout;
  readonly conn: Connection;
  readonly events: Emitter<RedisStoreEvents>;
  readonly limits: JsonLimits;
  readonly scanCount: number;
  /** @throws RedisStoreError `store_closed` once the store is closed. */
  open(): void;
}

/**
 * @internal Reads the entry at `key`, validated; a value of the wrong type or one that does not
 * decode is reported as `corrupt` (with `source`) and rejected with `corrupt_value`.
 */
export async function readEntry(
  store: Entries,
  key: string,
  source: 'get' | 'list',
  redisKey = redisKeyOf(store.layout, key),
): Promise<StoreEntry | undefined> {
  const { conn, events, redis } = store;
  store.open();
  const hash = await conn
    .run(() => redis.hgetall(redisKey), 'command_failed', { key })
    .catch((error: unknown) => {
      if (error instanceof RedisStoreError && error.code === 'corrupt_value') {
        events.emit('corrupt', { key, reason: 'wrong type', source });
      }
      throw error;
    });
  const decoded = decodeEntry(key, hash, store.limits);
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

/**
 * @internal Writes (or, without a value, deletes) the entry at `key` by the write script: `set`
 * always, `cas` only at the `expected` version. Resolves with the script's reply.
 */
export async function writeEntry(
  store: Entries,
  key: string,
  mode: 'set' | 'cas',
  expected: number | null,
  value: JsonValue | undefined,
  setOptions: StoreSetOptions | undefined,
): Promise<readonly string[]> {
  const { layout } = store;
  store.open();
  const json = value === undefined ? '' : stringifyJson(value, store.limits);
  const ttl =
    value === undefined || setOptions?.ttlMs === undefined
      ? ''
      : String(Math.ceil(assertTtlMs(setOptions.ttlMs)));
  const redisKey = redisKeyOf(layout, key);
  const result = await store.conn.script(
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
    store.events.emit('corrupt', { key, reason: `holds a ${result[1]}`, source: 'write' });
    throw new RedisStoreError('corrupt_value', `The key "${key}" does not hold a value of this store`, {
      details: { key, reason: `holds a ${result[1]}` },
    });
  }
  return result;
}

/**
 * @internal The entries whose keys start with `listPrefix`, by SCAN: each key once, read as it is
 * yielded; unreadable ones and key names outside the key encoding are reported and skipped.
 */
export async function* listEntries(store: Entries, listPrefix: string): AsyncIterable<StoreEntry> {
  const { conn, layout, redis } = store;
  store.open();
  // The encoding keeps prefixes, so the encoded list prefix matches exactly the keys it starts.
  const match = `${escapeGlob(redisKeyOf(layout, listPrefix))}*`;
  const seen = new Set<string>(); // SCAN may return a key more than once
  let cursor = '0';
  do {
    const from = cursor;
    const [next, keys] = await conn.run(
      () => redis.scan(from, 'MATCH', match, 'COUNT', store.scanCount),
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
        store.events.emit('corrupt', { key: encoded, reason: LEGACY_KEY, source: 'list' });
        continue;
      }
      // Each entry is read as it is yielded, so one deleted meanwhile is skipped, not replayed.
      const entry = await readEntry(store, key, 'list', redisKey).catch((error: unknown) => {
        if (error instanceof RedisStoreError && error.code === 'corrupt_value') return undefined;
        throw error;
      });
      if (entry !== undefined) yield entry;
    }
  } while (cursor !== '0');
}

/** @internal Turns on Redis's expiry notifications (`Ex` in notify-keyspace-events), keeping the flags set. */
export function configureExpiry(store: Entries): void {
  const { redis } = store;
  store.conn
    .run(async () => {
      const [, flags = ''] = (await redis.config('GET', 'notify-keyspace-events')) as string[];
      let add = flags.includes('E') ? '' : 'E';
      if (!flags.includes('x') && !flags.includes('A')) add += 'x';
      if (add !== '') await redis.config('SET', 'notify-keyspace-events', flags + add);
    }, 'command_failed')
    .catch((error: unknown) => store.events.emit('error', { error, source: 'configure' }));
}

/** Why `list` skips a key name this store cannot have written (see the README on key encoding). */
const LEGACY_KEY = 'key name not in the store key encoding (written before keys were encoded?)';
