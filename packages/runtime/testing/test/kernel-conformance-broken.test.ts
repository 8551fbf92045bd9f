// The kernel conformance suite against stores broken in one specific way each: the suite must fail,
// and the failure must name the promise the store broke (what a store author reads first).
import { createMemoryStore, isParleyError, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type KernelConformanceCase, kernelConformanceCases } from '../src/index.js';
import { delegating } from './helpers.js';

/** A compare-and-set that writes, then reports a lost race every third time (a script that misreads its own reply). */
function lyingAfterWrite(store: Store): Store {
  let calls = 0;
  return {
    ...delegating(store),
    async compareAndSet(key, version, value, options) {
      const result = await store.compareAndSet(key, version, value, options);
      calls += 1;
      return result.ok && calls % 3 === 0 ? { ok: false, version: result.version } : result;
    },
  };
}

/** A compare-and-set that answers ok and writes nothing every fourth time (a write lost on the way). */
function losingWrites(store: Store): Store {
  let calls = 0;
  return {
    ...delegating(store),
    async compareAndSet(key, version, value, options) {
      calls += 1;
      if (calls % 4 === 0) {
        const entry = await store.getEntry(key);
        if ((entry?.version ?? null) === version) return { ok: true, version: (entry?.version ?? 0) + 1 };
      }
      return store.compareAndSet(key, version, value, options);
    },
  };
}

/** A listing that also yields the entries of another prefix. */
function leakyList(store: Store): Store {
  return {
    ...delegating(store),
    async *list(prefix) {
      yield* store.list(prefix);
      yield* store.list('kc:listed:');
    },
  };
}

/** A listing answered from a copy taken at its first call (a stale replica). */
function staleList(store: Store): Store {
  const copies = new Map<string, unknown[]>();
  return {
    ...delegating(store),
    async *list(prefix) {
      let copy = copies.get(prefix);
      if (copy === undefined) {
        copy = [];
        for await (const entry of store.list(prefix)) copy.push(entry);
        copies.set(prefix, copy);
      }
      yield* copy as never[];
    },
  };
}

/** A compare-and-set that deletes a record left with no value (a store that drops tombstones). */
function droppingTombstones(store: Store): Store {
  return {
    ...delegating(store),
    async compareAndSet(key, version, value, options) {
      const empty =
        typeof value === 'object' && value !== null && (value as { data?: unknown }).data === null;
      return store.compareAndSet(key, version, empty ? undefined : value, options);
    },
  };
}

/** A listing whose entries carry a damaged copy of their value. */
function damagedList(store: Store): Store {
  return {
    ...delegating(store),
    async *list(prefix) {
      for await (const entry of store.list(prefix)) yield { ...entry, value: 'damaged' };
    },
  };
}

/** A listing that yields each entry 3,000 times (a cursor that never advances). */
function repeatingList(store: Store): Store {
  return {
    ...delegating(store),
    async *list(prefix) {
      for await (const entry of store.list(prefix)) for (let i = 0; i < 3_000; i++) yield entry;
    },
  };
}

/** Runs `check` on `broken` stores for `seeds` seeds; the assertion messages of the walks that failed. */
async function failures(check: KernelConformanceCase, broken: (store: Store) => Store, seeds = 12) {
  const messages: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const error = await check
      .run(async () => ({ store: broken(createMemoryStore()) }), { seed, steps: 60 })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    if (error === undefined) continue;
    expect(isParleyError(error, 'assertion_failed')).toBe(true);
    messages.push((error as Error).message);
  }
  return messages;
}

const named = (fragment: string): KernelConformanceCase => {
  const found = kernelConformanceCases().find((c) => c.name.includes(fragment));
  if (found === undefined) throw new Error(`no kernel conformance case names "${fragment}"`);
  return found;
};

describe('kernelConformanceCases name the promise a broken store breaks', () => {
  it('a compare-and-set that writes and then reports a lost race: commits applied twice', async () => {
    const messages = await failures(named('loses no acknowledged commit'), lyingAfterWrite);
    expect(messages.join('\n')).toMatch(/applied twice|was lost/);
  });

  it('a compare-and-set that loses writes it acknowledged: a claimed effect is handed out twice', async () => {
    const messages = await failures(named('runs no claimed effect twice'), losingWrites);
    expect(messages.join('\n')).toMatch(/claimed to run twice|never settled with/);
  });

  it('a compare-and-set that loses writes it acknowledged: an acknowledged commit is lost', async () => {
    const messages = await failures(named('lists under a prefix'), losingWrites);
    expect(messages.join('\n')).toMatch(/acknowledged commit .* was lost|another record than a read/);
  });

  it('a compare-and-set that loses writes it acknowledged: a lease or a commit is not kept', async () => {
    const messages = await failures(named('loses no acknowledged commit'), losingWrites);
    expect(messages.join('\n')).toMatch(/was lost|stale holder|expired lease|while .*'s was valid/);
  });

  it('a listing that leaks keys outside its prefix', async () => {
    const messages = await failures(named('lists under a prefix'), leakyList, 3);
    expect(messages.join('\n')).toMatch(/held a key outside it/);
  });

  it('a listing from a stale copy: it disagrees with a read of the same key', async () => {
    const messages = await failures(named('lists under a prefix'), staleList, 3);
    expect(messages.join('\n')).toMatch(/another record than a read|read refused .* the listing/);
  });

  it('a claim given back on a store that loses writes: the claim or its fence is not kept', async () => {
    const messages = await failures(named('hands a claim given back'), losingWrites);
    expect(messages.length).toBeGreaterThan(0);
  });

  it('a store that drops tombstones hands a fencing token out twice, or lets a claim given back write', async () => {
    const messages = await failures(named('hands a claim given back'), droppingTombstones);
    expect(messages.join('\n')).toMatch(/fencing token \d+ twice|still wrote|valid/);
  });

  it('a listing with damaged values: it refuses what a read of the same key reads', async () => {
    const messages = await failures(named('lists under a prefix'), damagedList, 3);
    expect(messages.join('\n')).toMatch(/read refused .* the listing/);
  });

  it('a listing that repeats its entries past the limit is reported truncated', async () => {
    const messages = await failures(named('lists under a prefix'), repeatingList, 3);
    expect(messages.join('\n')).toMatch(/was truncated/);
  });

  it('a compare-and-set that writes and then reports a lost race: a listed record holds a commit twice', async () => {
    const messages = await failures(named('lists under a prefix'), lyingAfterWrite);
    expect(messages.join('\n')).toMatch(/applied twice|was lost/);
  });
});
