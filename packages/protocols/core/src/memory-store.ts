import { type ChurnMap, createChurnMap } from './churn-map.js';
import { type Clock, systemClock } from './clock.js';
import { createEmitter, type Emitter, type Unsubscribe } from './emitter.js';
import { CoreError } from './errors.js';
import { type Checked, type DirectStore, registerDirect } from './internal/direct-store.js';
import { DeadlineHeap, type HeapItem } from './internal/heap.js';
import { isPlainJson } from './internal/plain-json.js';
import { type JsonValue, stringifyJson } from './json.js';
import type {
  CompareAndSetResult,
  Store,
  StoreChange,
  StoreEntry,
  StoreSetOptions,
  StoreWatchOptions,
} from './store.js';
import { assertTtlMs } from './store-keys.js';

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
  // keys come and go (a pending record deleted once decided): see churn-map.ts
  const data = createChurnMap<string, Slot>();
  const expiries = new DeadlineHeap<Slot>();
  let closed = false;
  const changes = createEmitter<{ change: StoreChange }>();
  const notify = (key: string, version: number | null, kind: StoreChange['kind']): void => {
    // the change is built only when someone listens (a kernel write on an unwatched store builds none)
    if (changes.listenerCount('change') > 0) changes.emit('change', { key, version, kind });
  };
  const slots: Slots = { data, expiries, clock, notify, versions: 0, seq: 0, now: undefined };
  const isClosed = (): boolean => closed;

  function open(): void {
    if (closed) throw new CoreError('store_closed', 'The store is closed');
  }

  function live(key: string): Slot | undefined {
    open();
    sweep(slots);
    return data.get(key);
  }

  const getEntry = (key: string): StoreEntry | undefined => {
    const slot = live(key);
    return slot === undefined ? undefined : toEntry(slot);
  };
  const compareAndSet = (
    key: string,
    expectedVersion: number | null,
    value: JsonValue | undefined,
    text: string | undefined,
    setOptions: StoreSetOptions | undefined,
    checked?: Checked,
  ): CompareAndSetResult => {
    const previous = live(key);
    const current = previous?.version ?? null;
    if (current !== expectedVersion) return { ok: false, version: current };
    return { ok: true, version: writeSlot(slots, key, previous, value, setOptions, text, checked) };
  };
  const versionOf = (key: string): number | null => live(key)?.version ?? null;
  const direct: DirectStore = { getEntry, versionOf, compareAndSet };

  const store: Store = {
    async get(key) {
      const slot = live(key);
      return slot === undefined ? undefined : (JSON.parse(slot.json) as JsonValue);
    },
    async getEntry(key) {
      return getEntry(key);
    },
    async set(key, value, setOptions) {
      return writeSlot(slots, key, live(key), value, setOptions);
    },
    async delete(key) {
      const slot = live(key);
      if (slot === undefined) return false;
      writeSlot(slots, key, slot, undefined, undefined);
      return true;
    },
    async compareAndSet(key, expectedVersion, value, setOptions) {
      return compareAndSet(key, expectedVersion, value, undefined, setOptions);
    },
    async *list(prefix) {
      open();
      sweep(slots);
      const matching = [...data.values()].filter((slot) => slot.key.startsWith(prefix));
      for (const slot of matching) {
        if (slot.at > clock.now() && data.get(slot.key) === slot) yield toEntry(slot);
      }
    },
    watch(prefix, listener, watchOptions = {}) {
      open();
      return watchChanges(changes, prefix, listener, watchOptions, isClosed);
    },
    async close() {
      closed = true;
      changes.removeAllListeners();
      data.clear();
      expiries.clear();
    },
  };
  registerDirect(store, direct);
  return store;
}

interface Slot extends HeapItem {
  readonly key: string;
  readonly json: string;
  readonly version: number;
}

/** The slots of one memory store, with its expiry heap and version and order counters. */
interface Slots {
  readonly data: ChurnMap<string, Slot>;
  readonly expiries: DeadlineHeap<Slot>;
  readonly clock: Clock;
  readonly notify: (key: string, version: number | null, kind: StoreChange['kind']) => void;
  versions: number;
  seq: number;
  /** The clock read by the sweep that began this call, while nothing else ran since. */
  now: number | undefined;
}

/**
 * Drops the slots whose time is up, each reported as an `expire` change. The clock reading stays in
 * `slots.now` for a write in the same call, unless a watcher was told something (it may have moved
 * the clock) or nothing has a TTL (no clock read).
 */
function sweep(slots: Slots): void {
  const { data, expiries, notify } = slots;
  let slot = expiries.peek();
  if (slot === undefined) {
    slots.now = undefined;
    return;
  }
  const now = slots.clock.now();
  slots.now = slot.at <= now ? undefined : now;
  for (; slot !== undefined && slot.at <= now; slot = expiries.peek()) {
    expiries.remove(slot);
    data.delete(slot.key);
    notify(slot.key, null, 'expire');
  }
}

/**
 * Writes `value` (undefined deletes) over `previous`, the live slot the caller just looked up at
 * `key`; `text`, when given, is its JSON.stringify, written once (`checked`: the parts of `value`
 * already checked as plain JSON, so not walked again).
 */
function writeSlot(
  slots: Slots,
  key: string,
  previous: Slot | undefined,
  value: JsonValue | undefined,
  options: StoreSetOptions | undefined,
  text?: string,
  checked: Checked = 'none',
): number {
  const { data, expiries, notify } = slots;
  if (value === undefined) {
    if (previous === undefined) return 0;
    expiries.remove(previous);
    data.delete(key);
    notify(key, null, 'delete');
    return previous.version;
  }
  // the text is stored only for plain JSON; anything else throws here, as stringifyJson does
  const plain =
    checked === 'all' ||
    isPlainJson(checked === 'envelope' ? (value as { readonly data?: JsonValue }).data : value, 0);
  let json: string;
  if (text !== undefined && plain) json = text;
  // checked whole just now: serialised as it is (stringifyJson would walk it again)
  else if (plain && checked === 'none') json = JSON.stringify(value);
  else json = stringifyJson(value);
  // A text composed of parts (the kernel writes a record around its data's text) is a tree of
  // pieces until read character by character; reading one flattens it into one string, so a
  // kept record holds one object instead of about a dozen.
  json.charCodeAt(0);
  const ttlMs = options?.ttlMs === undefined ? undefined : assertTtlMs(options.ttlMs);
  const slot: Slot = {
    key,
    json,
    version: ++slots.versions,
    at: ttlMs === undefined ? Number.POSITIVE_INFINITY : (slots.now ?? slots.clock.now()) + ttlMs,
    seq: ++slots.seq,
    index: -1,
  };
  data.set(key, slot);
  // the old expiry goes only now that the write is taken (a refused write leaves the key's TTL as it was)
  if (ttlMs === undefined) {
    if (previous !== undefined) expiries.remove(previous);
  } else if (previous === undefined) expiries.push(slot);
  else expiries.replace(previous, slot);
  notify(key, slot.version, 'set');
  return slot.version;
}

/** Subscribes to changes under `prefix`; `onResync` hears `subscribed` in a microtask, unless closed by then. */
function watchChanges(
  changes: Emitter<{ change: StoreChange }>,
  prefix: string,
  listener: (change: StoreChange) => void,
  { onResync }: StoreWatchOptions,
  isClosed: () => boolean,
): Unsubscribe {
  const off = changes.on('change', (change) => {
    if (change.key.startsWith(prefix)) listener(change);
  });
  if (onResync !== undefined) {
    // Live at once; told in a microtask so the caller has its unsubscribe function first.
    queueMicrotask(() => {
      if (!isClosed()) onResync({ prefix, reason: 'subscribed' });
    });
  }
  return off;
}

function toEntry(slot: Slot): StoreEntry {
  return {
    key: slot.key,
    value: JSON.parse(slot.json) as JsonValue, // written by stringifyJson, so it parses
    version: slot.version,
    expiresAt: Number.isFinite(slot.at) ? slot.at : undefined,
  };
}
