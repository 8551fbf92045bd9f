// The store's operations on its rows: read, write, delete, compare-and-set, list by pages, sweep.
import {
  assertTtlMs,
  type Clock,
  type CompareAndSetResult,
  type Emitter,
  type JsonLimits,
  type JsonValue,
  type StoreEntry,
  type StoreSetOptions,
  stringifyJson,
} from '@parley/core';
import { PostgresStoreError } from './errors.js';
import type { Details } from './failures.js';
import { decodeListedKey, decodeRow, encodeKey, prefixRange } from './rows.js';
import type { Statements } from './sql.js';
import type { PostgresStoreEvents } from './store-types.js';

/** @internal What a Postgres store's operations work with. */
export interface Entries {
  readonly sql: Statements;
  readonly clock: Clock;
  readonly limits: JsonLimits;
  readonly events: Emitter<PostgresStoreEvents>;
  readonly pageSize: number;
  /** Counts this store's writes, so `list` re-reads a row only when one may have changed it. */
  writes: number;
  /** @throws PostgresStoreError `store_closed` once the store is closed. */
  open(): void;
  /** Runs one statement (once the table is migrated), retrying a serialization failure. */
  run(text: string, values: readonly unknown[], details: Details): Promise<Record<string, unknown>[]>;
}

/** @internal The live entry at `key`; an unreadable one is reported and, for `get`, rejected. */
export async function readEntry(
  store: Entries,
  key: string,
  source: 'get' | 'list',
): Promise<StoreEntry | undefined> {
  const encoded = encodeKey(key);
  const rows = await store.run(store.sql.read, [encoded, store.clock.now()], { key });
  return decodeOne(store, key, rows[0], source);
}

function decodeOne(
  store: Entries,
  key: string,
  row: Record<string, unknown> | undefined,
  source: 'get' | 'list',
): StoreEntry | undefined {
  if (row === undefined) return undefined;
  const decoded = decodeRow(key, row, store.limits);
  if (decoded.ok) return decoded.entry;
  store.events.emit('corrupt', { key, reason: decoded.reason, source });
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
async function currentVersion(store: Entries, key: string): Promise<number | null> {
  return (await readEntry(store, key, 'get'))?.version ?? null;
}

/**
 * @internal Writes `value` at `key`: always (`any`), only where no live row is (`null`), or only
 * at that version. Resolves with the new version, or undefined when the check failed.
 */
export async function writeEntry(
  store: Entries,
  key: string,
  expected: number | null | 'any',
  value: JsonValue,
  setOptions: StoreSetOptions | undefined,
): Promise<number | undefined> {
  const { sql } = store;
  store.open();
  const encoded = encodeKey(key);
  const json = stringifyJson(value, store.limits);
  const ttlMs = setOptions?.ttlMs === undefined ? undefined : assertTtlMs(setOptions.ttlMs);
  const now = store.clock.now();
  const expiresAt = ttlMs === undefined ? null : Math.ceil(now + ttlMs);
  store.writes++;
  const rows =
    expected === 'any'
      ? await store.run(sql.set, [encoded, json, expiresAt], { key })
      : expected === null
        ? await store.run(sql.create, [encoded, json, expiresAt, now], { key })
        : await store.run(sql.replace, [encoded, json, expiresAt, now, expected], { key });
  return rows[0] === undefined ? undefined : Number(rows[0].version);
}

/** @internal Deletes the entry at `key`; whether a live one was there. */
export async function deleteEntry(store: Entries, key: string): Promise<boolean> {
  store.open();
  const encoded = encodeKey(key);
  store.writes++;
  const rows = await store.run(store.sql.delete, [encoded, store.clock.now()], { key });
  return rows[0]?.live === true;
}

/** @internal The store's `compareAndSet`: a write at the expected version, or (no value) a delete. */
export async function compareAndSetEntry(
  store: Entries,
  key: string,
  expectedVersion: number | null,
  value: JsonValue | undefined,
  setOptions: StoreSetOptions | undefined,
): Promise<CompareAndSetResult> {
  if (value === undefined) {
    store.open();
    const encoded = encodeKey(key);
    if (expectedVersion === null) {
      const current = await currentVersion(store, key);
      return current === null ? { ok: true, version: 0 } : { ok: false, version: current };
    }
    store.writes++;
    const rows = await store.run(store.sql.deleteIf, [encoded, store.clock.now(), expectedVersion], { key });
    if (rows[0] !== undefined) return { ok: true, version: Number(rows[0].version) };
    return { ok: false, version: await currentVersion(store, key) };
  }
  const version = await writeEntry(store, key, expectedVersion, value, setOptions);
  if (version !== undefined) return { ok: true, version };
  return { ok: false, version: await currentVersion(store, key) };
}

/**
 * @internal The live entries whose keys start with `listPrefix`, page by page in key order; key
 * names outside the key encoding and unreadable values are reported and skipped.
 */
export async function* listEntries(store: Entries, listPrefix: string): AsyncIterable<StoreEntry> {
  const { sql, pageSize } = store;
  store.open();
  const [low, high] = prefixRange(listPrefix);
  if (low === undefined) return; // longer than any key can be: nothing matches
  let after: string | undefined;
  for (;;) {
    const now = store.clock.now();
    const rows =
      after === undefined
        ? await store.run(sql.firstPage, [low, high, now, pageSize], { prefix: listPrefix })
        : await store.run(sql.nextPage, [low, high, now, pageSize, after], { prefix: listPrefix });
    const seenWrites = store.writes;
    for (const row of rows) {
      const key = decodeListedKey(String(row.key));
      if (key === undefined) {
        store.events.emit('corrupt', {
          key: String(row.key),
          reason: 'not an encoded store key',
          source: 'list',
        });
        continue;
      }
      // A row this store may have changed since the page was read is read again, so an entry
      // deleted while listing is not yielded.
      const entry =
        store.writes === seenWrites
          ? decodeOne(store, key, row, 'list')
          : await readEntry(store, key, 'list');
      if (entry !== undefined) yield entry;
    }
    if (rows.length < pageSize) return;
    after = String(rows[rows.length - 1]?.key);
  }
}

/** @internal Deletes up to `limit` expired rows; how many. */
export async function sweepExpired(store: Entries, limit: number): Promise<number> {
  const rows = await store.run(store.sql.sweep, [store.clock.now(), limit], { sweep: true });
  if (rows.length > 0) store.events.emit('swept', { count: rows.length });
  return rows.length;
}
