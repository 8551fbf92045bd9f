import type { Store, StoreChange, Unsubscribe } from '@parley/core';

/**
 * A fresh store for one conformance case, and how to watch it until a change is heard.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import type { StoreConformanceSubject } from '@parley/testing';
 *
 * const store = createMemoryStore();
 * const subject: StoreConformanceSubject = {
 *   store,
 *   watch: async (prefix, listener) => store.watch?.(prefix, listener) ?? (() => {}),
 * };
 * ```
 */
export interface StoreConformanceSubject {
  /** An empty store (or one whose keys no other case uses). The case closes it only in the close case. */
  readonly store: Store;
  /**
   * Watches `prefix` and resolves once the watch is live, so changes made after it are heard (for a
   * remote store: once `onResync` has said `subscribed`). Omit it for a store without `watch`: the
   * watch cases then pass without checking anything.
   */
  watch?(prefix: string, listener: (change: StoreChange) => void): Promise<Unsubscribe>;
}

/**
 * One named check of the Store contract: `run` throws (TestingError `assertion_failed`, or what
 * the store threw) when the store breaks it.
 *
 * @example
 * ```ts
 * import { storeConformanceCases, type StoreConformanceCase } from '@parley/testing';
 *
 * const watchCases: StoreConformanceCase[] = storeConformanceCases().filter((c) => c.group === 'watch');
 * ```
 */
export interface StoreConformanceCase {
  /** A present-tense sentence naming the behaviour; stable across releases. */
  readonly name: string;
  /** The method family it is about (`compareAndSet`, `watch`), for grouping; none for the basics. */
  readonly group?: 'compareAndSet' | 'watch';
  /** Runs the check on a fresh subject from `make`; throws when the store breaks the contract. */
  run(make: () => Promise<StoreConformanceSubject>): Promise<void>;
}
