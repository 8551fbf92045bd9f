import {
  type Clock,
  createEmitter,
  DEFAULT_JSON_LIMITS,
  type Emitter,
  systemClock,
  type TimerHandle,
} from '@parley/core';
import { type Db, toDb } from './driver.js';
import {
  compareAndSetEntry,
  deleteEntry,
  type Entries,
  listEntries,
  readEntry,
  sweepExpired,
  writeEntry,
} from './entries.js';
import { PostgresStoreError } from './errors.js';
import { type Details, isRetryable, toStoreError } from './failures.js';
import { migratePostgresStore } from './migrate.js';
import { DEFAULT_SCHEMA, namesOf } from './migration.js';
import { statementsFor } from './sql.js';
import type { PostgresStore, PostgresStoreEvents, PostgresStoreOptions } from './store-types.js';
import { createWatchHub, type WatchHub } from './watch.js';

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
  const clock = options.clock ?? systemClock;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const sweepLimit = options.sweepLimit ?? 1000;
  const retries = options.serializationRetries ?? 3;
  const events = createEmitter<PostgresStoreEvents>();
  const hub = watchHubOf(db, names.channel, clock, options.reconnectMs ?? 1000, events);
  let closed = false;
  let migrated: Promise<void> | undefined;
  let sweepTimer: TimerHandle | undefined;

  function ready(): Promise<void> {
    if (options.migrate === false) return Promise.resolve();
    migrated ??= migratePostgresStore(options.db, { schema: names.schema }).catch((error: unknown) => {
      migrated = undefined; // the next call tries again
      throw error;
    });
    return migrated;
  }

  const store: Entries = {
    sql: statementsFor(names),
    clock,
    limits: options.jsonLimits ?? DEFAULT_JSON_LIMITS,
    events,
    pageSize: options.listPageSize ?? 500,
    writes: 0,
    open() {
      if (closed) throw new PostgresStoreError('store_closed', 'The store is closed');
    },
    async run(text, values, details) {
      store.open();
      await ready();
      return runStatement(db, retries, text, values, details);
    },
  };
  const sweep = (): Promise<number> => sweepExpired(store, sweepLimit);

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
      return (await readEntry(store, key, 'get'))?.value;
    },
    getEntry: (key) => readEntry(store, key, 'get'),
    async set(key, value, setOptions) {
      return (await writeEntry(store, key, 'any', value, setOptions)) as number; // an upsert always returns its row
    },
    delete: (key) => deleteEntry(store, key),
    compareAndSet: (key, expectedVersion, value, setOptions) =>
      compareAndSetEntry(store, key, expectedVersion, value, setOptions),
    list: (listPrefix) => listEntries(store, listPrefix),
    watch(watchPrefix, listener, watchOptions = {}) {
      store.open();
      return hub.add(watchPrefix, listener, watchOptions);
    },
    sweep,
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

/** Runs one statement; a serialization failure or deadlock rolled it back, so it runs again (`retries` times at most). */
async function runStatement(
  db: Db,
  retries: number,
  text: string,
  values: readonly unknown[],
  details: Details,
): Promise<Record<string, unknown>[]> {
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

/** The store's watch hub on its LISTEN connection, reporting through the store's events. */
function watchHubOf(
  db: Db,
  channel: string,
  clock: Clock,
  reconnectMs: number,
  events: Emitter<PostgresStoreEvents>,
): WatchHub {
  return createWatchHub(db, channel, clock, reconnectMs, {
    onResync: (reason) => events.emit('resync', { reason }),
    onState: (state) => events.emit('connection', { state }),
    onError: (error, source) => events.emit('error', { error, source }),
    onMalformed: (payload) =>
      events.emit('error', {
        error: new Error(`unreadable change notification "${payload.slice(0, 80)}"`),
        source: 'notification',
      }),
  });
}
