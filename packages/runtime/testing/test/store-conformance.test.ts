import { createMemoryStore, isParleyError, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type StoreConformanceCase, storeConformanceCases } from '../src/index.js';

const memory = async () => {
  const store = createMemoryStore();
  return {
    store,
    watch: async (prefix: string, listener: () => void) => store.watch?.(prefix, listener) ?? (() => {}),
  };
};

/** The memory store with some methods replaced. */
function broken(overrides: (inner: Store) => Partial<Store>): () => Promise<{ store: Store }> {
  return async () => {
    const inner = createMemoryStore();
    return { store: { ...inner, list: inner.list.bind(inner), ...overrides(inner) } as Store };
  };
}

async function failures(make: () => Promise<{ store: Store }>): Promise<Map<string, unknown>> {
  const failed = new Map<string, unknown>();
  for (const c of storeConformanceCases()) {
    await c.run(make).catch((error: unknown) => failed.set(c.name, error));
  }
  return failed;
}

describe('storeConformanceCases', () => {
  it('passes the memory store, with watch heard at once or later, and without watch', async () => {
    /** Changes delivered later, as a remote store delivers them. */
    const remote = async () => {
      const store = createMemoryStore();
      return {
        store,
        watch: async (prefix: string, listener: (change: never) => void) =>
          store.watch?.(prefix, (change) => setImmediate(() => listener(change as never))) ?? (() => {}),
      };
    };
    for (const make of [memory, remote, async () => ({ store: createMemoryStore() })]) {
      expect([...(await failures(make)).keys()]).toEqual([]);
    }
  });

  it('names every case once, as a sentence, grouped by method family', () => {
    const cases: readonly StoreConformanceCase[] = storeConformanceCases();
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(new Set(cases.map((c) => c.group))).toEqual(new Set([undefined, 'compareAndSet', 'watch']));
  });

  it('fails a store that loses writes with assertion_failed, saying what it expected', async () => {
    const failed = await failures(broken(() => ({ set: async () => 1 })));
    expect(failed.size).toBeGreaterThan(5);
    const error = failed.get('stores, reads and deletes JSON values');
    expect(isParleyError(error, 'assertion_failed')).toBe(true);
    expect((error as Error).message).toContain('Store conformance: expected the value read back to be');
  });

  it('fails a store that accepts any ttl, or refuses with another code', async () => {
    const accepting = await failures(broken((inner) => ({ set: (key, value) => inner.set(key, value) })));
    expect(
      (accepting.get('refuses a bad ttl and a value that is not JSON, storing nothing') as Error).message,
    ).toContain('a rejection with code "invalid_timeout", got a result');
    const wrongCode = await failures(
      broken(() => ({
        set: async () => {
          throw new Error('nope');
        },
      })),
    );
    expect(
      (wrongCode.get('refuses a bad ttl and a value that is not JSON, storing nothing') as Error).message,
    ).toContain('a rejection with code "invalid_timeout", got Error: nope');
  });

  it('fails a store that lists or versions wrongly', async () => {
    const failed = await failures(
      broken((inner) => ({
        async *list() {
          yield* [];
        },
        getEntry: async (key) => {
          const entry = await inner.getEntry(key);
          return entry === undefined ? undefined : { ...entry, extra: true };
        },
      })),
    );
    expect(failed.has('lists entries by prefix only')).toBe(true);
    expect(failed.has('bumps the version on every write')).toBe(true);
  });
});
