// The behaviour every Store must have, run against the memory store and the Redis store alike.
import type { Store, StoreChange, Unsubscribe } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { collect, until } from './helpers.js';

export interface ContractSubject {
  readonly store: Store;
  /** Watches `prefix` and resolves once the watch is live (changes after it are heard). */
  watch(prefix: string, listener: (change: StoreChange) => void): Promise<Unsubscribe>;
}

export function storeContract(name: string, make: () => Promise<ContractSubject>): void {
  describe(`${name}: Store contract`, () => {
    it('stores, reads and deletes JSON values', async () => {
      const { store } = await make();
      await store.set('a', { n: 1, list: ['x'], nested: { ok: true, none: null } });
      expect(await store.get('a')).toEqual({ n: 1, list: ['x'], nested: { ok: true, none: null } });
      expect(await store.delete('a')).toBe(true);
      expect(await store.delete('a')).toBe(false);
      expect(await store.get('a')).toBeUndefined();
    });

    it('round-trips every JSON shape, including unicode keys and values', async () => {
      const { store } = await make();
      for (const value of [0, -1.5, 'text', '', true, false, null, [], {}, ['确认', { 取消: 2 }]]) {
        await store.set('确认:k|x*?[', value);
        expect(await store.get('确认:k|x*?[')).toEqual(value);
      }
    });

    it('copies values, so mutating the written or read object changes nothing stored', async () => {
      const { store } = await make();
      const value = { items: [1] };
      await store.set('k', value);
      value.items.push(2);
      const read = (await store.get('k')) as { items: number[] };
      read.items.push(3);
      expect(await store.get('k')).toEqual({ items: [1] });
    });

    it('bumps the version on every write', async () => {
      const { store } = await make();
      const v1 = await store.set('k', 1);
      const v2 = await store.set('k', 2);
      expect(v2).toBeGreaterThan(v1);
      expect(await store.getEntry('k')).toEqual({ key: 'k', value: 2, version: v2, expiresAt: undefined });
      expect(await store.getEntry('missing')).toBeUndefined();
    });

    it('drops the old expiry when a key is rewritten without ttl', async () => {
      const { store } = await make();
      await store.set('k', 1, { ttlMs: 60_000 });
      expect((await store.getEntry('k'))?.expiresAt).toBeGreaterThan(0);
      await store.set('k', 2);
      expect((await store.getEntry('k'))?.expiresAt).toBeUndefined();
    });

    it('refuses a bad ttl and a value that is not JSON, storing nothing', async () => {
      const { store } = await make();
      await expect(store.set('k', 1, { ttlMs: 0 })).rejects.toMatchObject({ code: 'invalid_timeout' });
      await expect(store.set('k', 1, { ttlMs: Number.NaN })).rejects.toMatchObject({
        code: 'invalid_timeout',
      });
      await expect(store.set('k', { at: new Date() } as never)).rejects.toMatchObject({
        code: 'json_not_serializable',
      });
      expect(await store.get('k')).toBeUndefined();
    });

    describe('compareAndSet', () => {
      it('creates a key only when it is absent (expected version null)', async () => {
        const { store } = await make();
        const first = await store.compareAndSet('lock', null, 'a');
        expect(first.ok).toBe(true);
        const second = await store.compareAndSet('lock', null, 'b');
        expect(second).toEqual({ ok: false, version: first.ok ? first.version : -1 });
        expect(await store.get('lock')).toBe('a');
      });

      it('writes only over the expected version, so exactly one of two racing writers wins', async () => {
        const { store } = await make();
        const version = await store.set('k', { state: 'pending' });
        const results = await Promise.all([
          store.compareAndSet('k', version, { state: 'approved' }),
          store.compareAndSet('k', version, { state: 'rejected' }),
        ]);
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        const winner = results.findIndex((r) => r.ok);
        expect(await store.get('k')).toEqual({ state: winner === 0 ? 'approved' : 'rejected' });
        const loser = results[1 - winner];
        expect(loser).toEqual({ ok: false, version: (await store.getEntry('k'))?.version });
      });

      it('refuses a write over an absent key when a version is expected', async () => {
        const { store } = await make();
        expect(await store.compareAndSet('k', 3, 1)).toEqual({ ok: false, version: null });
        expect(await store.get('k')).toBeUndefined();
      });

      it('deletes under the same condition when the new value is undefined', async () => {
        const { store } = await make();
        const version = await store.set('k', 1);
        expect((await store.compareAndSet('k', version + 100, undefined)).ok).toBe(false);
        expect(await store.get('k')).toBe(1);
        expect(await store.compareAndSet('k', version, undefined)).toEqual({ ok: true, version });
        expect(await store.get('k')).toBeUndefined();
        expect(await store.compareAndSet('k', null, undefined)).toEqual({ ok: true, version: 0 });
      });

      it('sets the expiry given with a compare-and-set write', async () => {
        const { store } = await make();
        const result = await store.compareAndSet('k', null, 1, { ttlMs: 60_000 });
        expect(result.ok).toBe(true);
        expect((await store.getEntry('k'))?.expiresAt).toBeGreaterThan(0);
      });
    });

    it('lists entries by prefix only', async () => {
      const { store } = await make();
      const va = await store.set('confirm:a', 1);
      await store.set('confirm:b', 2, { ttlMs: 60_000 });
      await store.set('request:c', 3);
      const listed = await collect(store.list('confirm:'));
      expect(listed.map((e) => [e.key, e.value])).toEqual([
        ['confirm:a', 1],
        ['confirm:b', 2],
      ]);
      expect(listed[0]).toEqual({ key: 'confirm:a', value: 1, version: va, expiresAt: undefined });
      expect(listed[1]?.expiresAt).toBeGreaterThan(0);
      expect(await collect(store.list('none:'))).toEqual([]);
      expect((await collect(store.list(''))).map((e) => e.key)).toEqual([
        'confirm:a',
        'confirm:b',
        'request:c',
      ]);
    });

    it('does not yield an entry deleted while listing', async () => {
      const { store } = await make();
      await store.set('p:1', 1);
      await store.set('p:2', 2);
      const seen: string[] = [];
      for await (const entry of store.list('p:')) {
        seen.push(entry.key);
        await store.delete(entry.key === 'p:1' ? 'p:2' : 'p:1');
      }
      expect(seen).toHaveLength(1);
    });

    it('rejects every call with store_closed after close', async () => {
      const { store } = await make();
      await store.set('k', 1);
      await store.close();
      await expect(store.get('k')).rejects.toMatchObject({ code: 'store_closed' });
      await expect(store.getEntry('k')).rejects.toMatchObject({ code: 'store_closed' });
      await expect(store.set('k', 1)).rejects.toMatchObject({ code: 'store_closed' });
      await expect(store.delete('k')).rejects.toMatchObject({ code: 'store_closed' });
      await expect(store.compareAndSet('k', null, 1)).rejects.toMatchObject({ code: 'store_closed' });
      await expect(collect(store.list(''))).rejects.toMatchObject({ code: 'store_closed' });
      expect(() => store.watch?.('', () => {})).toThrow(expect.objectContaining({ code: 'store_closed' }));
    });

    describe('watch', () => {
      it('reports sets and deletes under the watched prefix only, until unsubscribed', async () => {
        const subject = await make();
        const { store } = subject;
        const seen: StoreChange[] = [];
        const marks: StoreChange[] = [];
        const off = await subject.watch('confirm:', (change) => seen.push(change));
        await subject.watch('mark:', (change) => marks.push(change));
        const v1 = await store.set('confirm:a', 1);
        await store.set('request:b', 1);
        const v2 = await store.set('confirm:c', 2);
        await store.delete('confirm:c');
        await store.delete('confirm:missing');
        await store.set('mark:1', 1);
        await until(() => marks.length === 1, 5_000, 'the first mark');
        expect(seen).toEqual([
          { key: 'confirm:a', version: v1, kind: 'set' },
          { key: 'confirm:c', version: v2, kind: 'set' },
          { key: 'confirm:c', version: null, kind: 'delete' },
        ]);
        off();
        off(); // twice does nothing
        await store.set('confirm:d', 1);
        await store.set('mark:2', 1);
        await until(() => marks.length === 2, 5_000, 'the second mark');
        expect(seen).toHaveLength(3);
      });

      it('reports compare-and-set writes, and nothing for a lost race', async () => {
        const subject = await make();
        const { store } = subject;
        const seen: string[] = [];
        await subject.watch('', (change) => seen.push(`${change.kind}:${change.key}`));
        const first = await store.compareAndSet('k', null, 1);
        await store.compareAndSet('k', null, 2);
        await store.compareAndSet('k', first.ok ? first.version : 0, undefined);
        await store.set('end', 1);
        await until(() => seen.includes('set:end'), 5_000, 'the end mark');
        expect(seen).toEqual(['set:k', 'delete:k', 'set:end']);
      });
    });
  });
}
