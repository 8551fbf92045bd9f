import { type CompareAndSetResult, createMemoryStore, type Store, type StoreEntry } from '@parley/core';
import type { Clock } from '@parley/core';
import { TestingError } from './errors.js';

/**
 * The methods of a `Store` a {@link FakeStore} records, fails and interleaves.
 *
 * @example
 * ```ts
 * import { STORE_METHODS } from '@parley/testing';
 *
 * console.log(STORE_METHODS.includes('compareAndSet')); // true
 * ```
 */
export const STORE_METHODS = ['get', 'getEntry', 'set', 'delete', 'compareAndSet', 'list'] as const;

/**
 * One of {@link STORE_METHODS}.
 *
 * @example
 * ```ts
 * import type { StoreMethod } from '@parley/testing';
 *
 * const method: StoreMethod = 'set';
 * ```
 */
export type StoreMethod = (typeof STORE_METHODS)[number];

/**
 * One recorded call of a {@link FakeStore}.
 *
 * @example
 * ```ts
 * import type { StoreCall } from '@parley/testing';
 *
 * const writes = (calls: readonly StoreCall[]) => calls.filter((c) => c.method === 'set' || c.method === 'compareAndSet');
 * ```
 */
export interface StoreCall {
  readonly method: StoreMethod;
  /** The key, or the prefix for `list`. */
  readonly key: string;
  /** Whether the call threw (an injected failure, or the inner store's own error). */
  readonly failed: boolean;
  /** What it resolved to (for `list`, how many entries it yielded). */
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * Options for {@link createFakeStore}.
 *
 * @example
 * ```ts
 * import { createFakeClock, type FakeStoreOptions } from '@parley/testing';
 *
 * const options: FakeStoreOptions = { clock: createFakeClock() };
 * ```
 */
export interface FakeStoreOptions {
  /** The store that holds the data; a memory store on `clock` by default. */
  readonly inner?: Store;
  /** The clock of the default memory store (TTLs). */
  readonly clock?: Clock;
  /**
   * Whether to offer `watch` (passed through to the inner store, when it has one); `false` makes a
   * store that cannot notify, as a host's own store may be. True by default.
   */
  readonly watch?: boolean;
}

/**
 * A `Store` that records every call, fails methods on cue, and runs a hook just before a call (to
 * interleave another writer between a read and a compare-and-set).
 *
 * @example
 * ```ts
 * import { createFakeStore, type FakeStore } from '@parley/testing';
 *
 * const store: FakeStore = createFakeStore();
 * await store.set('k', 1);
 * console.log(store.calls.map((c) => c.method)); // [ 'set' ]
 * ```
 */
export interface FakeStore extends Store {
  /** The store underneath (writes through it are not recorded). */
  readonly inner: Store;
  /** Every call, in order. */
  readonly calls: readonly StoreCall[];
  /** The result of every compare-and-set that did not throw, in order. */
  readonly compareAndSetResults: readonly CompareAndSetResult[];
  /**
   * Makes calls of these methods fail with `error` (a TestingError `injected_fault` by default):
   * the next `times` calls, or every call until {@link FakeStore.heal} when `times` is omitted.
   */
  fail(
    methods: StoreMethod | readonly StoreMethod[],
    options?: { readonly times?: number; readonly error?: unknown },
  ): void;
  /** Stops failing these methods (every method when omitted). */
  heal(methods?: StoreMethod | readonly StoreMethod[]): void;
  /** Runs `hook` (awaited) just before each of the next `times` (default 1) calls of `method`. */
  before(method: StoreMethod, hook: (inner: Store) => unknown, times?: number): void;
}

/**
 * Creates a {@link FakeStore} over a memory store (or the `inner` one given): a test proves that a
 * component survives a store that cannot write, list or read, and that it handles a
 * compare-and-set lost to a concurrent writer.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { createFakeStore } from '@parley/testing';
 *
 * const store = createFakeStore();
 * store.fail('set', { times: 1 });
 * const error = await store.set('k', 1).catch((err: unknown) => err);
 * console.log(isParleyError(error, 'injected_fault'), await store.set('k', 2)); // true 1
 *
 * store.before('compareAndSet', (inner) => inner.set('k', 3)); // another writer wins the race
 * console.log(await store.compareAndSet('k', 1, 4)); // { ok: false, version: 2 }
 * ```
 */
export function createFakeStore(options: FakeStoreOptions = {}): FakeStore {
  const inner =
    options.inner ?? createMemoryStore(options.clock === undefined ? {} : { clock: options.clock });
  const calls: StoreCall[] = [];
  const casResults: CompareAndSetResult[] = [];
  const failing = new Map<StoreMethod, { left: number; error: unknown }>();
  const hooks: { method: StoreMethod; hook: (inner: Store) => unknown; left: number }[] = [];

  function injected(method: StoreMethod): { error: unknown } | undefined {
    const entry = failing.get(method);
    if (entry === undefined) return undefined;
    if (--entry.left <= 0) failing.delete(method);
    return entry;
  }

  async function prepare(method: StoreMethod): Promise<void> {
    const hook = hooks.find((h) => h.method === method && h.left > 0);
    if (hook !== undefined) {
      hook.left--;
      await hook.hook(inner);
    }
    const fault = injected(method);
    if (fault !== undefined) throw fault.error;
  }

  async function run<T>(method: StoreMethod, key: string, call: () => Promise<T>): Promise<T> {
    try {
      await prepare(method);
      const result = await call();
      calls.push({ method, key, failed: false, result });
      return result;
    } catch (error) {
      calls.push({ method, key, failed: true, error });
      throw error;
    }
  }

  async function* list(prefix: string): AsyncGenerator<StoreEntry> {
    let yielded = 0;
    try {
      await prepare('list');
      for await (const entry of inner.list(prefix)) {
        yielded++;
        yield entry;
      }
    } catch (error) {
      calls.push({ method: 'list', key: prefix, failed: true, error });
      throw error;
    }
    calls.push({ method: 'list', key: prefix, failed: false, result: yielded });
  }

  const store: FakeStore = {
    inner,
    get calls() {
      return calls;
    },
    get compareAndSetResults() {
      return casResults;
    },
    get: (key) => run('get', key, () => inner.get(key)),
    getEntry: (key) => run('getEntry', key, () => inner.getEntry(key)),
    set: (key, value, setOptions) => run('set', key, () => inner.set(key, value, setOptions)),
    delete: (key) => run('delete', key, () => inner.delete(key)),
    compareAndSet: (key, expected, value, setOptions) =>
      run('compareAndSet', key, async () => {
        const result = await inner.compareAndSet(key, expected, value, setOptions);
        casResults.push(result);
        return result;
      }),
    list,
    close: () => inner.close(),
    fail(methods, failOptions = {}) {
      const error =
        failOptions.error ??
        new TestingError('injected_fault', `FakeStore: ${String(methods)} failed (injected by fail)`, {
          details: { methods: String(methods) },
        });
      const times = failOptions.times ?? Number.POSITIVE_INFINITY;
      checkTimes('fail', times);
      for (const method of toList(methods)) failing.set(method, { left: times, error });
    },
    heal(methods) {
      for (const method of methods === undefined ? STORE_METHODS : toList(methods)) failing.delete(method);
    },
    before(method, hook, times = 1) {
      checkTimes('before', times);
      hooks.push({ method, hook, left: times });
    },
  };
  if (inner.watch !== undefined && options.watch !== false) {
    const watch = inner.watch.bind(inner);
    return Object.assign(store, { watch });
  }
  return store;
}

function toList(methods: StoreMethod | readonly StoreMethod[]): readonly StoreMethod[] {
  const list = typeof methods === 'string' ? [methods] : methods;
  for (const method of list) {
    if (!STORE_METHODS.includes(method)) {
      throw new TestingError(
        'invalid_argument',
        `FakeStore: unknown method ${String(method)}; use one of ${STORE_METHODS.join(', ')}`,
        {
          details: { method: String(method) },
        },
      );
    }
  }
  return list;
}

function checkTimes(what: string, times: number): void {
  if (!(times > 0) || (Number.isFinite(times) && !Number.isInteger(times))) {
    throw new TestingError(
      'invalid_argument',
      `FakeStore.${what}: times must be a positive integer, got ${times}`,
      {
        details: { times },
      },
    );
  }
}
