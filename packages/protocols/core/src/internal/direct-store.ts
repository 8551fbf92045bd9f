// A synchronous way into a memory store for the kernel: the same reads and writes as its public
// methods, without a promise per call, and a write that takes the text the kernel already wrote.
import type { JsonValue } from '../json.js';
import type { Store, CompareAndSetResult, StoreEntry, StoreSetOptions } from '../store.js';

/**
 * @internal What the writer checked as plain JSON of a value it hands over with its text: all of it,
 * all but its `data` (a kernel record whose envelope it wrote itself), or nothing.
 */
export type Checked = 'all' | 'envelope' | 'none';

/** @internal The synchronous reads and writes of one memory store. */
export interface DirectStore {
  /** What `getEntry` would resolve to (throws what it would reject with). */
  readonly getEntry: (key: string) => StoreEntry | undefined;
  /** The version of the live entry at `key` (`null` when absent or expired), without copying its value. */
  readonly versionOf: (key: string) => number | null;
  /**
   * What `compareAndSet` would resolve to; `text` is `JSON.stringify(value)`, stored as it is when
   * `value` is plain JSON (otherwise the write throws as `compareAndSet` would reject). `checked`
   * says which parts of `value` the caller already checked as plain JSON: those are not walked again.
   */
  readonly compareAndSet: (
    key: string,
    expectedVersion: number | null,
    value: JsonValue | undefined,
    text: string | undefined,
    options: StoreSetOptions | undefined,
    checked?: Checked,
  ) => CompareAndSetResult;
}

interface Registered {
  readonly direct: DirectStore;
  readonly getEntry: Store['getEntry'];
  readonly compareAndSet: Store['compareAndSet'];
}

const registry = new WeakMap<Store, Registered>();

/** @internal Records the synchronous path of `store`, the object `createMemoryStore` returned. */
export function registerDirect(store: Store, direct: DirectStore): void {
  registry.set(store, { direct, getEntry: store.getEntry, compareAndSet: store.compareAndSet });
}

/**
 * @internal The synchronous path of `store`, or undefined when it has none: another store, a
 * wrapper around a memory store, or a memory store whose `getEntry` or `compareAndSet` was replaced
 * since (a test that counts or fails calls sees every one of them).
 */
export function directOf(store: Store): DirectStore | undefined {
  const found = registry.get(store);
  return found !== undefined &&
    store.getEntry === found.getEntry &&
    store.compareAndSet === found.compareAndSet
    ? found.direct
    : undefined;
}
