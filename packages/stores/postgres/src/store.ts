import {
  assertTtlMs,
  type CompareAndSetResult,
  createEmitter,
  DEFAULT_JSON_LIMITS,
  type JsonValue,
  type StoreEntry,
  type StoreSetOptions,
  stringifyJson,
  systemClock,
  type TimerHandle,
} from '@parley/core';
import { type Db, toDb } from './driver.js';
import { PostgresStoreError } from './errors.js';
import { type Details, isRetryable, toStoreError } from './failures.js';
import { migratePostgresStore } from './migrate.js';
import { DEFAULT_SCHEMA, namesOf } from './migration.js';
import { decodeListedKey, decodeRow, encodeKey, prefixRange } from './rows.js';
import { statementsFor } from './sql.js';
import type { PostgresStore, PostgresStoreEvents, PostgresStoreOptions } from './store-types.js';
import { createWatchHub } from './watch.js';

/**
 * Creates a {@link PostgresStore}: the core `Store` kept in one Postgres table, so pending
 * confirmations, requests and flows survive restarts and are shared by every replica of a bot.
 *
 * Every write is one statement: the version check, the write, its new version (drawn from a
 * sequence after the row lock, so it only grows) and its NOTIFY commit together. Reads treat a row
 * past its `expires_at` as absent, whether or not the sweep has deleted it yet.
 *
 * @throws PostgresStoreError `invalid_argument` for a missing `db` or a bad `schema`. Its methods
 * reject with `connection_lost`, `statement_timeout`, `serialization_failure`, `query_failed`,
 * `corrupt_value`, `unsupported_format`, `key_too_long` or `store_closed`, and with CoreError
 * `invalid_timeout` (bad `ttlMs`) or a `json_*` code (a value that is not JSON or breaks `jsonLimits`).
 * @example
 * ```ts
 * import type { Pool } from 'pg';
 * import { createPostgresStore } from '@parley/postgres';
 *
 * export async function remember(pool: Pool): Promise<void> {
 *   const store = createPostgresStore({ db: pool, schema: 'billing_bot' });
 *   const version = await store.set('confirm:abc', { state: 'pending' }, { ttlMs: 60_000 });
 *   const won = await store.compareAndSet('confirm:abc', version, { state: 'approved' });
 *   console.log(won.ok, await store.get('confirm:abc')); // true { state: 'approved' }
 *   await store.close(); // the pool stays open
 * }
 * ```
 */
export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  if (typeof options?.db !== 'object' || options.db === null) {
    throw new PostgresStoreError(
      'invalid_argument',
      'db must be a pg Pool, a pg Client or a PGlite instance',
    );
  }
  const names = namesOf(options.schema ?? DEFAULT_SCHEMA);
  const db: Db = toDb(options.db);
  const sql = statementsFor(names);
  const clock = options.clock ?? systemClock;
  const limits = options.jsonLimits ?? DEFAULT_JSON_LIMITS;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const sweepLimit = options.sweepLimit ?? 1000;
  const pageSize = options.listPageSize ?? 500;
  const retries = options.serializationRetries ?? 3;
  const events = createEmitter<PostgresStoreEvents>();
  const hub = createWatchHub(db, names.channel, clock, options.reconnectMs ?? 1000, {
    onResync: (reason) => events.emit('resync', { reason }),
    onState: (state) => events.emit('connection', { state }),
    onError: (error, source) => events.emit('error', { error, source }),
    onMalformed: (payload) =>
      events.emit('error', {
        error: new Error(`unreadable change notification "${payload.slice(0, 80)}"`),
        source: 'notification',
      }),
  });
  let closed = false;
  let migrated: Promise<void> | undefined;
  /** Counts this store's writes, so `list` re-reads a row only when one may have changed it. */
  let writes = 0;
  let sweepTimer: TimerHandle | undefined;

  function open(): void {
    if (closed) throw new PostgresStoreError('store_closed', 'The store is closed');
  }

  function ready(): Promise<void> {
    if (options.migrate === false) return Promise.resolve();
    migrated ??= migratePostgresStore(options.db, { schema: names.schema }).catch((error: unknown) => {
      migrated = undefined; // the next call tries again
      throw error;
    });
    return migrated;
  }

  async function run(
    text: string,
    values: readonly unknown[],
    details: Details,
  ): Promise<Record<string, unknown>[]> {
    open();
    await ready();
    for (let attempt = 0; ; attempt++) {
      try {
        return await db.rows(text, values);
      } catch (error) {
        // A serialization failure or deadlock rolled the whole statement back: running it again is safe.
        if (attempt < retries && isRetryable(error)) continue;
        throw toStoreError(error, details);
      }
    }
  }

  async function read(key: string, source: 'get' | 'list'): Promise<StoreEntry | undefined> {
    const encoded = encodeKey(key);
    const rows = await run(sql.read, [encoded, clock.now()], { key });
    return decodeOne(key, rows[0], source);
  }

  function decodeOne(
    key: string,
    row: Record<string, unknown> | undefined,
    source: 'get' | 'list',
  ): StoreEntry | undefined {
    if (row === undefined) return undefined;
    const decoded = decodeRow(key, row, limits);
    if (decoded.ok) return decoded.entry;
    events.emit('corrupt', { key, reason: decoded.reason, source });
    if (source === 'list') return undefined;
    throw new PostgresStoreError(
      'corrupt_value',
      `The key "${key}" holds an unreadable value: ${decoded.reason}`,
      {
        details: { key, reason: decoded.reason },
      },
    );
  }

  /** The version a failed compare-and-set met: the live row's, or null. */
  async function currentVersion(key: string): Promise<number | null> {
    return (await read(key, 'get'))?.version ?? null;
  }

  async function write(
    key: string,
    expected: number | null | 'any',
    value: JsonValue,
    setOptions: StoreSetOptions | undefined,
  ): Promise<number | undefined> {
    open();
    const encoded = encodeKey(key);
    const json = stringifyJson(value, limits);
    const ttlMs = setOptions?.ttlMs === undefined ? undefined : assertTtlMs(setOptions.ttlMs);
    const now = clock.now();
    const expiresAt = ttlMs === undefined ? null : Math.ceil(now + ttlMs);
    writes++;
    const rows =
      expected === 'any'
        ? await run(sql.set, [encoded, json, expiresAt], { key })
        : expected === null
          ? await run(sql.create, [encoded, json, expiresAt, now], { key })
          : await run(sql.replace, [encoded, json, expiresAt, now, expected], { key });
    return rows[0] === undefined ? undefined : Number(rows[0].version);
  }

  async function sweep(): Promise<number> {
    const rows = await run(sql.sweep, [clock.now(), sweepLimit], { sweep: true });
    if (rows.length > 0) events.emit('swept', { count: rows.length });
    return rows.length;
  }

  function scheduleSweep(delayMs: number): void {
    sweepTimer = clock.setTimeout(
      () => {
        sweepTimer = undefined;
        sweep().then(
          (count) => {
            if (!closed) scheduleSweep(count >= sweepLimit ? 0 : sweepIntervalMs);
          },
          (error: unknown) => {
            if (closed) return;
            events.emit('error', { error, source: 'sweep' });
            scheduleSweep(sweepIntervalMs);
          },
        );
      },
      delayMs,
      { background: true }, // housekeeping never keeps a process alive
    );
  }
  if (sweepIntervalMs > 0) scheduleSweep(sweepIntervalMs);

  return {
    schema: names.schema,
    async get(key) {
      return (await read(key, 'get'))?.value;
    },
    getEntry(key) {
      return read(key, 'get');
    },
    async set(key, value, setOptions) {
      return (await write(key, 'any', value, setOptions)) as number; // an upsert always returns its row
    },
    async delete(key) {
      open();
      const encoded = encodeKey(key);
      writes++;
      const rows = await run(sql.delete, [encoded, clock.now()], { key });
      return rows[0]?.live === true;
    },
    async compareAndSet(key, expectedVersion, value, setOptions): Promise<CompareAndSetResult> {
      if (value === undefined) {
        open();
        const encoded = encodeKey(key);
        if (expectedVersion === null) {
          const current = await currentVersion(key);
          return current === null ? { ok: true, version: 0 } : { ok: false, version: current };
        }
        writes++;
        const rows = await run(sql.deleteIf, [encoded, clock.now(), expectedVersion], { key });
        if (rows[0] !== undefined) return { ok: true, version: Number(rows[0].version) };
        return { ok: false, version: await currentVersion(key) };
      }
      const version = await write(key, expectedVersion, value, setOptions);
      if (version !== undefined) return { ok: true, version };
      return { ok: false, version: await currentVersion(key) };
    },
    async *list(listPrefix) {
      open();
      const [low, high] = prefixRange(listPrefix);
      if (low === undefined) return; // longer than any key can be: nothing matches
      let after: string | undefined;
      for (;;) {
        const now = clock.now();
        const rows =
          after === undefined
            ? await run(sql.firstPage, [low, high, now, pageSize], { prefix: listPrefix })
            : await run(sql.nextPage, [low, high, now, pageSize, after], { prefix: listPrefix });
        const seenWrites = writes;
        for (const row of rows) {
          const key = decodeListedKey(String(row.key));
          if (key === undefined) {
            events.emit('corrupt', {
              key: String(row.key),
              reason: 'not an encoded store key',
              source: 'list',
            });
            continue;
          }
          // A row this store may have changed since the page was read is read again, so an entry
          // deleted while listing is not yielded.
          const entry = writes === seenWrites ? decodeOne(key, row, 'list') : await read(key, 'list');
          if (entry !== undefined) yield entry;
        }
        if (rows.length < pageSize) return;
        after = String(rows[rows.length - 1]?.key);
      }
    },
    watch(watchPrefix, listener, watchOptions = {}) {
      open();
      return hub.add(watchPrefix, listener, watchOptions);
    },
    sweep() {
      return sweep();
    },
    on(event, listener) {
      return events.on(event, listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      clock.clearTimeout(sweepTimer);
      hub.close();
      events.removeAllListeners();
    },
  };
}
