import { describe, expect, it, vi } from 'vitest';
import { createManualClock, createMemoryStore, type StoreEntry } from '../src/index.js';

async function collect(iterable: AsyncIterable<StoreEntry>): Promise<StoreEntry[]> {
  const out: StoreEntry[] = [];
  for await (const entry of iterable) out.push(entry);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

describe('createMemoryStore', () => {
  it('stores, reads and deletes JSON values', async () => {
    const store = createMemoryStore();
    await store.set('a', { n: 1, list: ['x'] });
    expect(await store.get('a')).toEqual({ n: 1, list: ['x'] });
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.get('a')).toBeUndefined();
  });

  it('copies values, so mutating the written or read object changes nothing stored', async () => {
    const store = createMemoryStore();
    const value = { items: [1] };
    await store.set('k', value);
    value.items.push(2);
    const read = (await store.get('k')) as { items: number[] };
    read.items.push(3);
    expect(await store.get('k')).toEqual({ items: [1] });
  });

  it('bumps the version on every write', async () => {
    const store = createMemoryStore();
    const v1 = await store.set('k', 1);
    const v2 = await store.set('k', 2);
    expect(v2).toBeGreaterThan(v1);
    expect(await store.getEntry('k')).toEqual({ key: 'k', value: 2, version: v2, expiresAt: undefined });
    expect(await store.getEntry('missing')).toBeUndefined();
  });

  it('expires a key after ttlMs on the injected clock', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    await store.set('k', 'v', { ttlMs: 500 });
    expect((await store.getEntry('k'))?.expiresAt).toBe(1_500);
    clock.advance(499);
    expect(await store.get('k')).toBe('v');
    clock.advance(1);
    expect(await store.get('k')).toBeUndefined();
    expect(await store.delete('k')).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('drops the old expiry when a key is rewritten without ttl', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    await store.set('k', 1, { ttlMs: 10 });
    await store.set('k', 2);
    clock.advance(100);
    expect(await store.get('k')).toBe(2);
  });

  it('refuses a bad ttl and a value that is not JSON', async () => {
    const store = createMemoryStore();
    await expect(store.set('k', 1, { ttlMs: 0 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    await expect(store.set('k', 1, { ttlMs: Number.NaN })).rejects.toMatchObject({ code: 'invalid_timeout' });
    await expect(store.set('k', { at: new Date() } as never)).rejects.toMatchObject({
      code: 'json_not_serializable',
    });
    expect(await store.get('k')).toBeUndefined();
  });

  describe('compareAndSet', () => {
    it('creates a key only when it is absent (expected version null)', async () => {
      const store = createMemoryStore();
      const first = await store.compareAndSet('lock', null, 'a');
      expect(first.ok).toBe(true);
      const second = await store.compareAndSet('lock', null, 'b');
      expect(second).toEqual({ ok: false, version: first.ok ? first.version : -1 });
      expect(await store.get('lock')).toBe('a');
    });

    it('writes only over the expected version, so exactly one of two racing writers wins', async () => {
      const store = createMemoryStore();
      const version = await store.set('k', { state: 'pending' });
      const results = await Promise.all([
        store.compareAndSet('k', version, { state: 'approved' }),
        store.compareAndSet('k', version, { state: 'rejected' }),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(await store.get('k')).toEqual({ state: 'approved' });
    });

    it('deletes under the same condition when the new value is undefined', async () => {
      const store = createMemoryStore();
      const version = await store.set('k', 1);
      expect((await store.compareAndSet('k', version + 100, undefined)).ok).toBe(false);
      expect((await store.compareAndSet('k', version, undefined)).ok).toBe(true);
      expect(await store.get('k')).toBeUndefined();
    });

    it('treats an expired key as absent', async () => {
      const clock = createManualClock();
      const store = createMemoryStore({ clock });
      await store.set('k', 1, { ttlMs: 10 });
      clock.advance(10);
      expect((await store.compareAndSet('k', null, 2, { ttlMs: 10 })).ok).toBe(true);
      expect((await store.getEntry('k'))?.expiresAt).toBe(20);
    });
  });

  it('lists live entries by prefix only', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    await store.set('confirm:a', 1);
    await store.set('confirm:b', 2, { ttlMs: 5 });
    await store.set('request:c', 3);
    expect((await collect(store.list('confirm:'))).map((e) => [e.key, e.value])).toEqual([
      ['confirm:a', 1],
      ['confirm:b', 2],
    ]);
    clock.advance(5);
    expect((await collect(store.list('confirm:'))).map((e) => e.key)).toEqual(['confirm:a']);
    expect(await collect(store.list('none:'))).toEqual([]);
  });

  it('does not yield an entry deleted while listing', async () => {
    const store = createMemoryStore();
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
    const store = createMemoryStore();
    await store.set('k', 1);
    await store.close();
    await expect(store.get('k')).rejects.toMatchObject({ code: 'store_closed' });
    await expect(store.set('k', 1)).rejects.toMatchObject({ code: 'store_closed' });
    await expect(collect(store.list(''))).rejects.toMatchObject({ code: 'store_closed' });
  });
});

describe('createMemoryStore watch', () => {
  it('reports sets, deletes and expiries under the watched prefix only', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const seen: unknown[] = [];
    const off = store.watch?.('confirm:', (change) => seen.push(change));
    const v1 = await store.set('confirm:a', 1, { ttlMs: 10 });
    await store.set('request:b', 1);
    const v2 = await store.set('confirm:c', 2);
    await store.delete('confirm:c');
    await store.delete('confirm:missing');
    clock.advance(10);
    await store.get('anything');
    expect(seen).toEqual([
      { key: 'confirm:a', version: v1, kind: 'set' },
      { key: 'confirm:c', version: v2, kind: 'set' },
      { key: 'confirm:c', version: null, kind: 'delete' },
      { key: 'confirm:a', version: null, kind: 'expire' },
    ]);
    off?.();
    await store.set('confirm:d', 1);
    expect(seen).toHaveLength(4);
  });

  it('reports compare-and-set writes, and nothing for a lost race', async () => {
    const store = createMemoryStore();
    const seen: string[] = [];
    store.watch?.('', (change) => seen.push(`${change.kind}:${change.key}`));
    const first = await store.compareAndSet('k', null, 1);
    await store.compareAndSet('k', null, 2);
    await store.compareAndSet('k', first.ok ? first.version : 0, undefined);
    expect(seen).toEqual(['set:k', 'delete:k']);
  });

  it('refuses to watch a closed store and drops watchers on close', async () => {
    const store = createMemoryStore();
    const listener = vi.fn();
    store.watch?.('', listener);
    await store.close();
    expect(() => store.watch?.('', listener)).toThrow(expect.objectContaining({ code: 'store_closed' }));
    expect(listener).not.toHaveBeenCalled();
  });
});

describe('createMemoryStore watch resync', () => {
  it('tells a watcher once, after watch returns, that its subscription is live', async () => {
    const store = createMemoryStore();
    const onResync = vi.fn();
    store.watch?.('p:', () => {}, { onResync });
    expect(onResync).not.toHaveBeenCalled();
    await Promise.resolve();
    expect(onResync).toHaveBeenCalledExactlyOnceWith({ prefix: 'p:', reason: 'subscribed' });
  });

  it('does not call onResync once the store is closed', async () => {
    const store = createMemoryStore();
    const onResync = vi.fn();
    store.watch?.('p:', () => {}, { onResync });
    await store.close();
    await Promise.resolve();
    expect(onResync).not.toHaveBeenCalled();
  });
});

describe('createMemoryStore: issue 19 reproductions', () => {
  it('[STORE-1] keeps call_\\ud800 and call_\\udbff apart, so a compare-and-set on each wins', async () => {
    const store = createMemoryStore();
    expect((await store.compareAndSet('call_\ud800', null, 'a')).ok).toBe(true);
    expect((await store.compareAndSet('call_\udbff', null, 'b')).ok).toBe(true);
    expect((await collect(store.list('call_\ud800'))).map((e) => e.value)).toEqual(['a']);
    expect(await store.get('call_\udbff')).toBe('b');
  });

  it('[STORE-5] refuses ttlMs 1e16 and 1e300 with invalid_timeout and writes nothing', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    await expect(store.set('k', 1, { ttlMs: 1e16 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    await expect(store.set('k', 1, { ttlMs: 1e300 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    expect(await store.getEntry('k')).toBeUndefined();
  });
});
