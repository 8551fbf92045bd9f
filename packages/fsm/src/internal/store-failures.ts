// A Store seen by the kernel, keeping the last error the real store threw for each key, so a
// `store_failed` refusal can carry the store's own error as its `cause`.
import type { Store } from '@parley/core';

/** At most this many keys' errors are kept (the oldest goes first): bounded whatever fails. */
const MAX_KEPT = 256;

/** @internal The wrapped store and a way to take the last error thrown for a key. */
export interface WatchedStore {
  readonly store: Store;
  /** The last error the store threw for `key` (then forgotten), or `undefined`. */
  take(key: string): unknown;
}

/** @internal Wraps `store` so the errors of its reads and compare-and-sets are kept per key. */
export function watchFailures(store: Store): WatchedStore {
  const errors = new Map<string, unknown>();
  const kept = async <T>(key: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      errors.delete(key);
      if (errors.size >= MAX_KEPT) errors.delete(errors.keys().next().value as string); // the oldest
      errors.set(key, error);
      throw error;
    }
  };
  const watched: Store = {
    get: (key) => store.get(key),
    getEntry: (key) => kept(key, () => store.getEntry(key)),
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    compareAndSet: (key, expected, value, options) =>
      kept(key, () => store.compareAndSet(key, expected, value, options)),
    list: (prefix) => store.list(prefix),
    close: () => store.close(),
  };
  return {
    store: watched,
    take(key) {
      const error = errors.get(key);
      errors.delete(key);
      return error;
    },
  };
}
