import { type Clock, systemClock } from './clock.js';
import { createEmitter, type Unsubscribe } from './emitter.js';
import { CoreError } from './errors.js';
import { DeadlineHeap, type HeapItem } from './internal/heap.js';
import { type JsonValue, stringifyJson } from './json.js';
import { assertTtlMs } from './store-keys.js';

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

/**
 * Options for {@link createMemoryStore}.
 *
 * @example
 * ```ts
 * import { createManualClock, type MemoryStoreOptions } from '@parley/core';
 *
 * const options: MemoryStoreOptions = { clock: createManualClock() };
 * ```
 */
export interface MemoryStoreOptions {
  /** Drives expiry; the system clock by default. */
  readonly clock?: Clock;
}

/**
 * Creates an in-memory {@link Store}: the default for a single process and for tests.
 *
 * TTL follows the injected clock, so expiry is tested by advancing a manual clock; expired keys
 * are dropped, and reported to watchers, on the next call after they expire (no timers are used).
 * Watchers are called synchronously after each write commits; share one memory store between two
 * components to simulate two replicas. Values are copied on write and on read, as a
 * remote store would, so a caller mutating an object never changes what is stored.
 *
 * @throws CoreError `json_not_serializable` when a value is not JSON; `invalid_timeout` for a bad
 * `ttlMs`; `store_closed` after `close()`.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 *
 * const clock = createManualClock();
 * const store = createMemoryStore({ clock });
 * const version = await store.set('k', 1, { ttlMs: 1000 });
 * console.log((await store.compareAndSet('k', version, 2)).ok); // true
 * clock.advance(1000);
 * console.log(await store.get('k')); // undefined
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const clock = options.clock ?? systemClock;
  const data = new Map<string, Slot>();
  const expiries = new DeadlineHeap<Slot>();
  let versions = 0;
  let seq = 0;
  let closed = false;
  const changes = createEmitter<{ change: StoreChange }>();
  const notify = (change: StoreChange): void => {
    if (changes.listenerCount('change') > 0) changes.emit('change', change);
  };

  function open(): void {
    if (closed) throw new CoreError('store_closed', 'The store is closed');
  }

  function sweep(): void {
    const now = clock.now();
    for (let slot = expiries.peek(); slot !== undefined && slot.at <= now; slot = expiries.peek()) {
      expiries.remove(slot);
      data.delete(slot.key);
      notify({ key: slot.key, version: null, kind: 'expire' });
    }
  }

  function live(key: string): Slot | undefined {
    open();
    sweep();
    return data.get(key);
  }

  function write(key: string, value: JsonValue | undefined, options: StoreSetOptions | undefined): number {
    const previous = data.get(key);
    if (previous !== undefined) expiries.remove(previous);
    if (value === undefined) {
      data.delete(key);
      if (previous !== undefined) notify({ key, version: null, kind: 'delete' });
      return previous?.version ?? 0;
    }
    const json = stringifyJson(value);
    const ttlMs = options?.ttlMs === undefined ? undefined : assertTtlMs(options.ttlMs);
    const slot: Slot = {
      key,
      json,
      version: ++versions,
      at: ttlMs === undefined ? Number.POSITIVE_INFINITY : clock.now() + ttlMs,
      seq: ++seq,
      index: -1,
    };
    data.set(key, slot);
    if (ttlMs !== undefined) expiries.push(slot);
    notify({ key, version: slot.version, kind: 'set' });
    return slot.version;
  }

  return {
    async get(key) {
      const slot = live(key);
      return slot === undefined ? undefined : (JSON.parse(slot.json) as JsonValue);
    },
    async getEntry(key) {
      const slot = live(key);
      return slot === undefined ? undefined : toEntry(slot);
    },
    async set(key, value, setOptions) {
      live(key);
      return write(key, value, setOptions);
    },
    async delete(key) {
      const slot = live(key);
      if (slot === undefined) return false;
      write(key, undefined, undefined);
      return true;
    },
    async compareAndSet(key, expectedVersion, value, setOptions) {
      const current = live(key)?.version ?? null;
      if (current !== expectedVersion) return { ok: false, version: current };
      return { ok: true, version: write(key, value, setOptions) };
    },
    async *list(prefix) {
      open();
      sweep();
      const matching = [...data.values()].filter((slot) => slot.key.startsWith(prefix));
      for (const slot of matching) {
        if (slot.at > clock.now() && data.get(slot.key) === slot) yield toEntry(slot);
      }
    },
    watch(prefix, listener, watchOptions = {}) {
      open();
      const off = changes.on('change', (change) => {
        if (change.key.startsWith(prefix)) listener(change);
      });
      const { onResync } = watchOptions;
      if (onResync !== undefined) {
        // Live at once; told in a microtask so the caller has its unsubscribe function first.
        queueMicrotask(() => {
          if (!closed) onResync({ prefix, reason: 'subscribed' });
        });
      }
      return off;
    },
    async close() {
      closed = true;
      changes.removeAllListeners();
      data.clear();
      expiries.clear();
    },
  };
}

interface Slot extends HeapItem {
  readonly key: string;
  readonly json: string;
  readonly version: number;
}

function toEntry(slot: Slot): StoreEntry {
  return {
    key: slot.key,
    value: JSON.parse(slot.json) as JsonValue, // written by stringifyJson, so it parses
    version: slot.version,
    expiresAt: Number.isFinite(slot.at) ? slot.at : undefined,
  };
}
