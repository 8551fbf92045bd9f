import type { Unsubscribe } from './emitter.js';
import type { JsonValue } from './json.js';

/**
 * One stored value with its version and expiry.
 *
 * @example
 * ```ts
 * import type { StoreEntry } from '@parley/core';
 *
 * const entry: StoreEntry = { key: 'confirm:abc', value: { state: 'pending' }, version: 3, expiresAt: 1_700_000_000_000 };
 * ```
 */
export interface StoreEntry {
  readonly key: string;
  readonly value: JsonValue;
  /** Increases on every write of the key; what {@link Store.compareAndSet} compares. */
  readonly version: number;
  /** Absolute expiry in epoch ms, or `undefined` for none. */
  readonly expiresAt?: number | undefined;
}

/**
 * Options for a write.
 *
 * @example
 * ```ts
 * import type { StoreSetOptions } from '@parley/core';
 *
 * const options: StoreSetOptions = { ttlMs: 5 * 60_000 };
 * ```
 */
export interface StoreSetOptions {
  /** Time to live in ms; the key disappears after it. No expiry when omitted. */
  readonly ttlMs?: number;
}

/**
 * The result of {@link Store.compareAndSet}: the new version, or the current one that did not match.
 *
 * @example
 * ```ts
 * import type { CompareAndSetResult } from '@parley/core';
 *
 * const lost: CompareAndSetResult = { ok: false, version: 4 };
 * ```
 */
export type CompareAndSetResult =
  | { readonly ok: true; readonly version: number }
  | { readonly ok: false; readonly version: number | null };

/**
 * A change to a watched key, as {@link Store.watch} reports it.
 *
 * @example
 * ```ts
 * import type { StoreChange } from '@parley/core';
 *
 * const change: StoreChange = { key: 'confirm:abc', version: 7, kind: 'set' };
 * ```
 */
export interface StoreChange {
  readonly key: string;
  /** The version written, or `null` when the key was deleted or expired. */
  readonly version: number | null;
  readonly kind: 'set' | 'delete' | 'expire';
}

/**
 * Options of {@link Store.watch}.
 *
 * @example
 * ```ts
 * import type { StoreWatchOptions } from '@parley/core';
 *
 * const options: StoreWatchOptions = {
 *   onResync: ({ prefix, reason }) => console.log(`re-read ${prefix} (${reason})`),
 * };
 * ```
 */
export interface StoreWatchOptions {
  /**
   * Called when the watcher may have missed changes under its prefix and must re-read them
   * (`list(prefix)` or `getEntry`): once when the subscription is live (`subscribed`), and after
   * every reconnect of a remote store (`reconnected`).
   */
  readonly onResync?: (event: {
    readonly prefix: string;
    readonly reason: 'subscribed' | 'reconnected';
  }) => void;
}

/**
 * The asynchronous key/value store in which Parley persists pending flows, requests and
 * confirmations. Values are JSON; every write bumps a per-key version used for compare-and-set.
 *
 * Implement it to persist elsewhere; `createMemoryStore` is the default and `@parley/redis` the
 * shared one. Implementations must make `compareAndSet` atomic.
 *
 * @example
 * ```ts
 * import { createMemoryStore, type Store } from '@parley/core';
 *
 * const store: Store = createMemoryStore();
 * await store.set('flow:1', { state: 'goal' }, { ttlMs: 60_000 });
 * console.log(await store.get('flow:1')); // { state: 'goal' }
 * ```
 */
export interface Store {
  /** The value of `key`, or `undefined` when absent or expired. */
  get(key: string): Promise<JsonValue | undefined>;
  /** The value with its version and expiry, or `undefined`. */
  getEntry(key: string): Promise<StoreEntry | undefined>;
  /** Writes `value` unconditionally; returns the new version. */
  set(key: string, value: JsonValue, options?: StoreSetOptions): Promise<number>;
  /** Removes `key`; returns whether it existed. */
  delete(key: string): Promise<boolean>;
  /**
   * Writes `value` only if the key's version is `expectedVersion` (`null`: only if absent). A
   * `value` of `undefined` deletes the key under the same condition.
   */
  compareAndSet(
    key: string,
    expectedVersion: number | null,
    value: JsonValue | undefined,
    options?: StoreSetOptions,
  ): Promise<CompareAndSetResult>;
  /** Every live entry whose key starts with `prefix`, in no guaranteed order. */
  list(prefix: string): AsyncIterable<StoreEntry>;
  /**
   * Calls `listener` after any write, delete or expiry of a key starting with `prefix`, made through
   * any handle on the same data (another instance, another replica). Optional: a store that cannot
   * notify omits it, and components then poll or rely on their own deadlines.
   */
  watch?(prefix: string, listener: (change: StoreChange) => void, options?: StoreWatchOptions): Unsubscribe;
  /** Releases resources; later calls reject with `store_closed`. */
  close(): Promise<void>;
}
