// Stores wrapped for tests: the same store as plain functions (to override a method or two) and
// the same store without `watch` (instances on it learn of each other's writes only by reading).
import type { Store } from '@parley/core';

/** The methods of `store` as plain functions over it, to override one or two (a spread alone loses their `this`). */
export function delegating(store: Store): Store {
  return {
    ...store,
    get: (key) => store.get(key),
    getEntry: (key) => store.getEntry(key),
    set: (key, value, options) => store.set(key, value, options),
    delete: (key) => store.delete(key),
    compareAndSet: (key, version, value, options) => store.compareAndSet(key, version, value, options),
    list: (prefix) => store.list(prefix),
    close: () => store.close(),
  };
}

/** `store` without `watch`: whoever uses it learns of other writers' changes only by reading. */
export function withoutWatch(store: Store): Store {
  const { watch: _watch, ...rest } = delegating(store);
  return rest;
}
