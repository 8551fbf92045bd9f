import {
  isParleyError,
  MAX_TTL_MS,
  type Store,
  type StoreChange,
  type StoreEntry,
  type Unsubscribe,
} from '@parley/core';
import { TestingError } from './errors.js';
import { describe } from './internal/format.js';

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
  run(make: () => Promise<StoreConformanceSubject>): Promise<void>;
}

/**
 * Lists the checks every `Store` must pass, the ones the memory, Redis and Postgres stores run:
 * JSON round trips and copies, versions, TTL and its refusals, atomic compare-and-set, prefix
 * listing, keys that UTF-8 cannot hold (lone surrogates, NUL) kept distinct, `close`, and `watch`.
 *
 * Use it to test a store of your own with any runner: each case is a name and an async function
 * that throws on failure, so a loop of `it(c.name, () => c.run(make))` runs them all.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import { storeConformanceCases } from '@parley/testing';
 *
 * const passed: string[] = [];
 * for (const check of storeConformanceCases()) {
 *   await check.run(async () => ({ store: createMemoryStore() })); // throws on a broken contract
 *   passed.push(check.name);
 * }
 * console.log(passed.length === storeConformanceCases().length); // true
 * ```
 */
export function storeConformanceCases(): readonly StoreConformanceCase[] {
  return CASES;
}

const CASES: readonly StoreConformanceCase[] = [
  {
    name: 'stores, reads and deletes JSON values',
    async run(make) {
      const { store } = await make();
      const value = { n: 1, list: ['x'], nested: { ok: true, none: null } };
      await store.set('a', value);
      equal(await store.get('a'), value, 'the value read back');
      equal(await store.delete('a'), true, 'delete of a present key');
      equal(await store.delete('a'), false, 'delete of an absent key');
      equal(await store.get('a'), undefined, 'a deleted key');
    },
  },
  {
    name: 'round-trips every JSON shape, including unicode keys and values',
    async run(make) {
      const { store } = await make();
      for (const value of [0, -1.5, 'text', '', true, false, null, [], {}, ['确认', { 取消: 2 }]]) {
        await store.set('确认:k|x*?[', value);
        equal(await store.get('确认:k|x*?['), value, 'the value read back');
      }
    },
  },
  {
    name: 'copies values, so mutating the written or read object changes nothing stored',
    async run(make) {
      const { store } = await make();
      const value = { items: [1] };
      await store.set('k', value);
      value.items.push(2);
      const read = (await store.get('k')) as { items: number[] };
      read.items.push(3);
      equal(await store.get('k'), { items: [1] }, 'the stored value');
    },
  },
  {
    name: 'bumps the version on every write',
    async run(make) {
      const { store } = await make();
      const v1 = await store.set('k', 1);
      const v2 = await store.set('k', 2);
      check(v2 > v1, `the second version (${v2}) to be greater than the first (${v1})`);
      equal(
        await store.getEntry('k'),
        { key: 'k', value: 2, version: v2, expiresAt: undefined },
        'the entry',
      );
      equal(await store.getEntry('missing'), undefined, 'an absent entry');
    },
  },
  {
    name: 'drops the old expiry when a key is rewritten without ttl',
    async run(make) {
      const { store } = await make();
      await store.set('k', 1, { ttlMs: 60_000 });
      check(((await store.getEntry('k'))?.expiresAt ?? 0) > 0, 'an expiry after a write with ttlMs');
      await store.set('k', 2);
      equal((await store.getEntry('k'))?.expiresAt, undefined, 'the expiry after a write without ttlMs');
    },
  },
  {
    name: 'refuses a bad ttl and a value that is not JSON, storing nothing',
    async run(make) {
      const { store } = await make();
      await rejects(store.set('k', 1, { ttlMs: 0 }), 'invalid_timeout');
      await rejects(store.set('k', 1, { ttlMs: Number.NaN }), 'invalid_timeout');
      await rejects(store.set('k', { at: new Date() } as never), 'json_not_serializable');
      equal(await store.get('k'), undefined, 'the key after refused writes');
    },
  },
  {
    name: 'refuses a ttl beyond MAX_TTL_MS (1e16, 1e300) on set and compareAndSet, storing nothing',
    async run(make) {
      const { store } = await make();
      for (const ttlMs of [MAX_TTL_MS + 1, 1e16, 1e300, Number.POSITIVE_INFINITY, -1]) {
        await rejects(store.set('k', 1, { ttlMs }), 'invalid_timeout');
        await rejects(store.compareAndSet('k', null, 1, { ttlMs }), 'invalid_timeout');
      }
      equal(await store.get('k'), undefined, 'the key after refused writes');
      await store.set('k', 1, { ttlMs: MAX_TTL_MS });
      check(((await store.getEntry('k'))?.expiresAt ?? 0) > 0, 'MAX_TTL_MS itself to be accepted');
    },
  },
  {
    name: 'keeps keys with lone surrogates distinct under compareAndSet and list',
    async run(make) {
      const { store } = await make();
      // Each differs from the others only where UTF-8 cannot hold it (or holds its encoding).
      const keys = [
        's:\ud800',
        's:\udbff',
        's:\udc00',
        's:\ud83d\ude00',
        's:\ufffd',
        's:%uD800',
        's:\ud800x',
      ];
      const versions = new Map<string, number>();
      for (const key of keys) {
        const result = await store.compareAndSet(key, null, key);
        check(result.ok, `compareAndSet(${describe(key)}, null) to create the key`);
        if (result.ok) versions.set(key, result.version);
      }
      for (const key of keys) equal(await store.get(key), key, `the value of ${describe(key)}`);
      const [first, second] = keys as [string, string];
      const lost = await store.compareAndSet(first, versions.get(second) ?? 0, 'other');
      equal(
        lost,
        { ok: false, version: versions.get(first) ?? 0 },
        "compareAndSet with another key's version",
      );
      equal(keysIn(await collect(store.list('s:'))), [...keys].sort(), 'the keys listed under "s:"');
      equal(
        keysIn(await collect(store.list('s:\ud800'))),
        ['s:\ud800', 's:\ud800x'],
        'the keys listed under a lone-surrogate prefix',
      );
      equal(keysIn(await collect(store.list('s:%'))), ['s:%uD800'], 'the keys listed under "s:%"');
    },
  },
  {
    name: 'keeps keys with NUL distinct from each other and from their escaped text',
    async run(make) {
      const { store } = await make();
      const keys = ['n:\u0000', 'n:\u0000b', 'n:', 'n:%00', 'n:\u0000\u0000'];
      for (const key of keys) await store.set(key, key);
      for (const key of keys) equal(await store.get(key), key, `the value of ${describe(key)}`);
      equal(
        keysIn(await collect(store.list('n:\u0000'))),
        ['n:\u0000', 'n:\u0000\u0000', 'n:\u0000b'],
        'the keys listed under a NUL prefix',
      );
      equal(await store.delete('n:\u0000'), true, 'delete of the NUL key');
      equal(await store.get('n:\u0000b'), 'n:\u0000b', 'a neighbour of the deleted key');
    },
  },
  {
    group: 'compareAndSet',
    name: 'creates a key only when it is absent (expected version null)',
    async run(make) {
      const { store } = await make();
      const first = await store.compareAndSet('lock', null, 'a');
      check(first.ok, 'the first compareAndSet to win');
      const second = await store.compareAndSet('lock', null, 'b');
      equal(second, { ok: false, version: first.ok ? first.version : -1 }, 'the second compareAndSet');
      equal(await store.get('lock'), 'a', 'the stored value');
    },
  },
  {
    group: 'compareAndSet',
    name: 'writes only over the expected version, so exactly one of two racing writers wins',
    async run(make) {
      const { store } = await make();
      const version = await store.set('k', { state: 'pending' });
      const results = await Promise.all([
        store.compareAndSet('k', version, { state: 'approved' }),
        store.compareAndSet('k', version, { state: 'rejected' }),
      ]);
      equal(results.filter((r) => r.ok).length, 1, 'how many racing writers won');
      const winner = results.findIndex((r) => r.ok);
      equal(await store.get('k'), { state: winner === 0 ? 'approved' : 'rejected' }, 'the stored value');
      equal(results[1 - winner], { ok: false, version: (await store.getEntry('k'))?.version }, 'the loser');
    },
  },
  {
    group: 'compareAndSet',
    name: 'refuses a write over an absent key when a version is expected',
    async run(make) {
      const { store } = await make();
      equal(await store.compareAndSet('k', 3, 1), { ok: false, version: null }, 'the result');
      equal(await store.get('k'), undefined, 'the key');
    },
  },
  {
    group: 'compareAndSet',
    name: 'deletes under the same condition when the new value is undefined',
    async run(make) {
      const { store } = await make();
      const version = await store.set('k', 1);
      equal(
        (await store.compareAndSet('k', version + 100, undefined)).ok,
        false,
        'a delete at a wrong version',
      );
      equal(
        await store.compareAndSet('k', null, undefined),
        { ok: false, version },
        'a delete expecting absence',
      );
      equal(await store.get('k'), 1, 'the key after refused deletes');
      equal(await store.compareAndSet('k', version, undefined), { ok: true, version }, 'the delete');
      equal(await store.get('k'), undefined, 'the deleted key');
      equal(await store.compareAndSet('k', null, undefined), { ok: true, version: 0 }, 'a delete of nothing');
    },
  },
  {
    group: 'compareAndSet',
    name: 'sets the expiry given with a compare-and-set write',
    async run(make) {
      const { store } = await make();
      const result = await store.compareAndSet('k', null, 1, { ttlMs: 60_000 });
      check(result.ok, 'the compareAndSet to win');
      check(((await store.getEntry('k'))?.expiresAt ?? 0) > 0, 'an expiry');
    },
  },
  {
    name: 'lists entries by prefix only',
    async run(make) {
      const { store } = await make();
      const va = await store.set('confirm:a', 1);
      await store.set('confirm:b', 2, { ttlMs: 60_000 });
      await store.set('request:c', 3);
      const listed = await collect(store.list('confirm:'));
      equal(
        listed.map((e) => [e.key, e.value]),
        [
          ['confirm:a', 1],
          ['confirm:b', 2],
        ],
        'the entries under "confirm:"',
      );
      equal(listed[0], { key: 'confirm:a', value: 1, version: va, expiresAt: undefined }, 'the first entry');
      check((listed[1]?.expiresAt ?? 0) > 0, 'the expiry of the second entry');
      equal(await collect(store.list('none:')), [], 'the entries under "none:"');
      equal(keysIn(await collect(store.list(''))), ['confirm:a', 'confirm:b', 'request:c'], 'every key');
    },
  },
  {
    name: 'does not yield an entry deleted while listing',
    async run(make) {
      const { store } = await make();
      await store.set('p:1', 1);
      await store.set('p:2', 2);
      const seen: string[] = [];
      for await (const entry of store.list('p:')) {
        seen.push(entry.key);
        await store.delete(entry.key === 'p:1' ? 'p:2' : 'p:1');
      }
      equal(seen.length, 1, 'how many entries were yielded');
    },
  },
  {
    name: 'rejects every call with store_closed after close',
    async run(make) {
      const { store } = await make();
      await store.set('k', 1);
      await store.close();
      await rejects(store.get('k'), 'store_closed');
      await rejects(store.getEntry('k'), 'store_closed');
      await rejects(store.set('k', 1), 'store_closed');
      await rejects(store.delete('k'), 'store_closed');
      await rejects(store.compareAndSet('k', null, 1), 'store_closed');
      await rejects(collect(store.list('')), 'store_closed');
      if (store.watch !== undefined) {
        await rejects(
          Promise.resolve().then(() => store.watch?.('', () => {})),
          'store_closed',
        );
      }
    },
  },
  {
    group: 'watch',
    name: 'reports sets and deletes under the watched prefix only, until unsubscribed',
    async run(make) {
      const subject = await make();
      if (subject.watch === undefined) return;
      const { store } = subject;
      const seen: StoreChange[] = [];
      const marks = heard();
      const off = await subject.watch('confirm:', (change) => seen.push(change));
      await subject.watch('mark:', marks.listener);
      const v1 = await store.set('confirm:a', 1);
      await store.set('request:b', 1);
      const v2 = await store.set('confirm:c', 2);
      await store.delete('confirm:c');
      await store.delete('confirm:missing');
      await store.set('mark:1', 1);
      await marks.until(1);
      equal(
        seen,
        [
          { key: 'confirm:a', version: v1, kind: 'set' },
          { key: 'confirm:c', version: v2, kind: 'set' },
          { key: 'confirm:c', version: null, kind: 'delete' },
        ],
        'the changes heard under "confirm:"',
      );
      off();
      off(); // twice does nothing
      await store.set('confirm:d', 1);
      await store.set('mark:2', 1);
      await marks.until(2);
      equal(seen.length, 3, 'how many changes were heard after unsubscribing');
    },
  },
  {
    group: 'watch',
    name: 'reports compare-and-set writes, and nothing for a lost race',
    async run(make) {
      const subject = await make();
      if (subject.watch === undefined) return;
      const { store } = subject;
      const seen: string[] = [];
      const marks = heard();
      await subject.watch('', (change) => {
        seen.push(`${change.kind}:${change.key}`);
        marks.listener(change);
      });
      const first = await store.compareAndSet('k', null, 1);
      await store.compareAndSet('k', null, 2);
      await store.compareAndSet('k', first.ok ? first.version : 0, undefined);
      await store.set('end', 1);
      await marks.until(3);
      equal(seen, ['set:k', 'delete:k', 'set:end'], 'the changes heard');
    },
  },
];

function fail(message: string): never {
  throw new TestingError('assertion_failed', `Store conformance: expected ${message}`);
}

function check(condition: boolean, what: string): void {
  if (!condition) fail(what);
}

function equal(actual: unknown, expected: unknown, what: string): void {
  if (!same(actual, expected)) fail(`${what} to be ${describe(expected)}, got ${describe(actual)}`);
}

async function rejects(promise: Promise<unknown>, code: string): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (error) {
    if (isParleyError(error, code)) return;
    fail(`a rejection with code "${code}", got ${describe(error)}`);
  }
  fail(`a rejection with code "${code}", got a result ${describe(outcome)}`);
}

/** Deep equality of plain data, a property set to `undefined` counting as absent (as `toEqual` does). */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysOf = (value: object): string[] =>
    Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  const ka = keysOf(a);
  const kb = keysOf(b);
  if (ka.length !== kb.length) return false;
  return ka.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

async function collect(iterable: AsyncIterable<StoreEntry>): Promise<StoreEntry[]> {
  const out: StoreEntry[] = [];
  for await (const entry of iterable) out.push(entry);
  return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

function keysIn(entries: readonly StoreEntry[]): string[] {
  return entries.map((entry) => entry.key);
}

/** Counts changes heard, and waits (without timers) until a number of them arrived. */
function heard(): { listener: (change: StoreChange) => void; until(count: number): Promise<void> } {
  let count = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  return {
    listener() {
      count++;
      for (const wait of waiting.filter((w) => w.count <= count)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    },
    until(target) {
      if (count >= target) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ count: target, resolve }));
    },
  };
}
