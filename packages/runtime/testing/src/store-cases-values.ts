import { MAX_TTL_MS, type StoreEntry } from '@parley/core';
import { checksFor } from './internal/check.js';
import { describe } from './internal/format.js';
import type { StoreConformanceCase } from './store-conformance-types.js';

const { check, equal, rejects } = checksFor('Store conformance');

/** The Store cases about values, versions, expiry and awkward keys. */
export const VALUE_CASES: readonly StoreConformanceCase[] = [
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
];

async function collect(iterable: AsyncIterable<StoreEntry>): Promise<StoreEntry[]> {
  const out: StoreEntry[] = [];
  for await (const entry of iterable) out.push(entry);
  return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

function keysIn(entries: readonly StoreEntry[]): string[] {
  return entries.map((entry) => entry.key);
}
