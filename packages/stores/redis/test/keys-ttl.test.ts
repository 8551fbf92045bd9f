// Store contract cases for key identity and TTL range (issue 19 §5), run against the memory store
// and the Redis store alike. Kept apart from contract.ts, which is moving to @parley/testing.
import { createMemoryStore, MAX_TTL_MS, type Store, type StoreChange, type Unsubscribe } from '@parley/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisStore } from '../src/index.js';
import { collect, type RedisServer, startRedis, until } from './helpers.js';

interface Subject {
  readonly store: Store;
  /** Watches `prefix` and resolves once the watch is live (changes after it are heard). */
  watch(prefix: string, listener: (change: StoreChange) => void): Promise<Unsubscribe>;
}

let server: RedisServer;
let redis: Redis;
let count = 0;
const opened: Store[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await server.stop();
});

/** Keys that a lossy UTF-8 round trip, a naive escape or a glob would merge or confuse. */
const LOOKALIKES = [
  'call_\ud800',
  'call_\udbff',
  'call_\udc00',
  'call_\ufffd',
  'call_%uD800',
  'call_%25',
  'call_%',
  'call_\u0000',
  'call_%00',
  'call_😀',
  'call_\ud83d',
  'call_*',
  'call_?',
  'call_[a]',
  'call_\\',
] as const;

function keysTtlContract(name: string, make: () => Promise<Subject>): void {
  describe(`${name}: distinct keys stay distinct`, () => {
    it('[STORE-1] lets a compare-and-set on call_\\udbff win after one on call_\\ud800 (lone surrogates)', async () => {
      const { store } = await make();
      expect((await store.compareAndSet('call_\ud800', null, 'first')).ok).toBe(true);
      expect((await store.compareAndSet('call_\udbff', null, 'second')).ok).toBe(true);
      expect(await store.get('call_\ud800')).toBe('first');
      expect(await store.get('call_\udbff')).toBe('second');
    });

    it('[STORE-2] keeps every look-alike key apart through set, get, compare-and-set and delete', async () => {
      const { store } = await make();
      const versions = new Map<string, number>();
      for (const key of LOOKALIKES) {
        const won = await store.compareAndSet(key, null, key);
        expect(won.ok).toBe(true);
        versions.set(key, won.ok ? won.version : -1);
      }
      for (const key of LOOKALIKES) {
        expect(await store.getEntry(key)).toEqual({
          key,
          value: key,
          version: versions.get(key),
          expiresAt: undefined,
        });
      }
      expect(await store.delete('call_\ud800')).toBe(true);
      expect(await store.get('call_\udbff')).toBe('call_\udbff');
      expect(await store.get('call_%uD800')).toBe('call_%uD800');
    });

    it('[STORE-3] lists look-alike keys under their own names, and a lone-surrogate prefix matches only its keys', async () => {
      const { store } = await make();
      for (const key of LOOKALIKES) await store.set(key, key);
      await store.set('other', 0);
      const listed = await collect(store.list('call_'));
      expect(listed.map((e) => e.key).sort()).toEqual([...LOOKALIKES].sort());
      expect(listed.every((e) => e.value === e.key)).toBe(true);
      expect((await collect(store.list('call_\ud800'))).map((e) => e.key)).toEqual(['call_\ud800']);
      expect((await collect(store.list('call_%'))).map((e) => e.key).sort()).toEqual(
        ['call_%', 'call_%00', 'call_%25', 'call_%uD800'].sort(),
      );
      expect((await collect(store.list('call_*'))).map((e) => e.key)).toEqual(['call_*']);
      // A prefix ending in half a surrogate pair is a prefix of the whole character.
      expect((await collect(store.list('call_\ud83d'))).map((e) => e.key).sort()).toEqual(
        ['call_\ud83d', 'call_😀'].sort(),
      );
    });

    it('[STORE-4] reports changes to look-alike keys under their own names', async () => {
      const subject = await make();
      const seen: StoreChange[] = [];
      await subject.watch('call_\ud800', (change) => seen.push(change));
      const marks: StoreChange[] = [];
      await subject.watch('mark', (change) => marks.push(change));
      await subject.store.set('call_\udbff', 1);
      const version = await subject.store.set('call_\ud800', 2);
      await subject.store.delete('call_\ud800');
      await subject.store.set('mark', 1);
      await until(() => marks.length === 1, 20_000, 'the mark');
      expect(seen).toEqual([
        { key: 'call_\ud800', version, kind: 'set' },
        { key: 'call_\ud800', version: null, kind: 'delete' },
      ]);
    });
  });

  describe(`${name}: ttlMs is checked before anything is written`, () => {
    it.each([
      ['1e16', 1e16],
      ['1e300', 1e300],
      ['MAX_TTL_MS + 1', MAX_TTL_MS + 1],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['-1', -1],
      ['a string', '1000' as unknown as number],
    ])(
      '[STORE-5] refuses ttlMs %s with invalid_timeout on set and compare-and-set, leaving the key as it was',
      async (_, ttlMs) => {
        const { store } = await make();
        const version = await store.set('k', 'kept');
        await expect(store.set('k', 'lost', { ttlMs })).rejects.toMatchObject({
          code: 'invalid_timeout',
          details: { name: 'ttlMs' },
        });
        await expect(store.compareAndSet('k', version, 'lost', { ttlMs })).rejects.toMatchObject({
          code: 'invalid_timeout',
        });
        await expect(store.compareAndSet('new', null, 'lost', { ttlMs })).rejects.toMatchObject({
          code: 'invalid_timeout',
        });
        expect(await store.getEntry('k')).toEqual({ key: 'k', value: 'kept', version, expiresAt: undefined });
        expect(await store.get('new')).toBeUndefined();
      },
    );

    it('[STORE-6] keeps a value written with the longest ttl, MAX_TTL_MS, readable with its expiry', async () => {
      const { store } = await make();
      await store.set('k', 'long', { ttlMs: MAX_TTL_MS });
      const entry = await store.getEntry('k');
      expect(entry?.value).toBe('long');
      expect(entry?.expiresAt).toBeGreaterThanOrEqual(MAX_TTL_MS);
      expect((await collect(store.list('k'))).map((e) => e.value)).toEqual(['long']);
    });
  });
}

keysTtlContract('createMemoryStore', async () => {
  const store = createMemoryStore();
  opened.push(store);
  return {
    store,
    watch: async (prefix, listener) => store.watch?.(prefix, listener) ?? (() => {}),
  };
});

keysTtlContract('createRedisStore', async () => {
  const store: RedisStore = createRedisStore({ redis, prefix: `keys${++count}:` });
  opened.push(store);
  return {
    store,
    watch: (prefix, listener) =>
      new Promise<Unsubscribe>((resolve) => {
        const off = store.watch(prefix, listener, { onResync: () => resolve(off) });
      }),
  };
});
