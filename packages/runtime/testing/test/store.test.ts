import { createMemoryStore, isParleyError, type StoreEntry } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFakeClock, createFakeStore } from '../src/index.js';

async function collect(iterable: AsyncIterable<StoreEntry>): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of iterable) keys.push(entry.key);
  return keys.sort();
}

describe('createFakeStore', () => {
  it('stores through a memory store on the clock and records every call', async () => {
    const clock = createFakeClock();
    const store = createFakeStore({ clock });
    await store.set('a:1', 1, { ttlMs: 100 });
    await store.set('a:2', 2);
    expect(await store.get('a:1')).toBe(1);
    expect((await store.getEntry('a:2'))?.value).toBe(2);
    expect(await collect(store.list('a:'))).toEqual(['a:1', 'a:2']);
    clock.advance(100);
    expect(await store.get('a:1')).toBeUndefined();
    expect(await store.delete('a:2')).toBe(true);
    const cas = await store.compareAndSet('b', null, 'x');
    expect(cas.ok).toBe(true);
    expect(store.calls.map((c) => `${c.method} ${c.key}`)).toEqual([
      'set a:1',
      'set a:2',
      'get a:1',
      'getEntry a:2',
      'list a:',
      'get a:1',
      'delete a:2',
      'compareAndSet b',
    ]);
    expect(store.calls.map((c) => c.result).slice(2)).toEqual([
      1,
      expect.objectContaining({ value: 2 }),
      2,
      undefined,
      true,
      cas,
    ]);
    expect(store.calls.every((c) => !c.failed)).toBe(true);
    expect(store.compareAndSetResults).toEqual([cas]);
    await store.close();
  });

  it('fails methods on cue until healed, with an injected_fault by default', async () => {
    const store = createFakeStore();
    store.fail(['set', 'compareAndSet']);
    for (let i = 0; i < 2; i++) {
      const error = await store.set('k', i).catch((err: unknown) => err);
      expect(isParleyError(error, 'injected_fault')).toBe(true);
    }
    await expect(store.compareAndSet('k', null, 1)).rejects.toMatchObject({ code: 'injected_fault' });
    expect(await store.inner.get('k')).toBeUndefined();
    store.heal('set');
    expect(await store.set('k', 3)).toBe(1);
    await expect(store.compareAndSet('k', 1, 4)).rejects.toMatchObject({ code: 'injected_fault' });
    store.heal();
    expect((await store.compareAndSet('k', 1, 4)).ok).toBe(true);
    expect(store.calls.filter((c) => c.failed).map((c) => c.method)).toEqual([
      'set',
      'set',
      'compareAndSet',
      'compareAndSet',
    ]);
  });

  it('fails the next calls only, with the given error', async () => {
    const store = createFakeStore();
    const down = new Error('db down');
    store.fail('get', { times: 1, error: down });
    await expect(store.get('k')).rejects.toBe(down);
    expect(await store.get('k')).toBeUndefined();
  });

  it('fails list as it is iterated', async () => {
    const store = createFakeStore();
    await store.set('p:1', 1);
    store.fail('list', { times: 1 });
    await expect(collect(store.list('p:'))).rejects.toMatchObject({ code: 'injected_fault' });
    expect(await collect(store.list('p:'))).toEqual(['p:1']);
    expect(store.calls.filter((c) => c.method === 'list').map((c) => c.failed)).toEqual([true, false]);
  });

  it('runs a hook before the next calls, so another writer wins the race', async () => {
    const store = createFakeStore();
    await store.set('k', 'mine');
    let n = 0;
    store.before('compareAndSet', (inner) => inner.set('k', `theirs ${++n}`), 2);
    expect(await store.compareAndSet('k', 1, 'x')).toEqual({ ok: false, version: 2 });
    expect(await store.compareAndSet('k', 2, 'x')).toEqual({ ok: false, version: 3 });
    expect(await store.compareAndSet('k', 3, 'x')).toEqual({ ok: true, version: 4 });
    expect(store.compareAndSetResults.map((r) => r.ok)).toEqual([false, false, true]);
  });

  it('refuses unknown methods and bad counts', () => {
    const store = createFakeStore();
    expect(() => store.fail('watch' as 'get')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => store.fail('get', { times: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => store.before('get', () => {}, 1.5)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('passes watch through when the inner store has it, and omits it otherwise', async () => {
    const store = createFakeStore({ inner: createMemoryStore() });
    const changes: string[] = [];
    const off = store.watch?.('k', (change) => changes.push(change.kind));
    await store.set('k', 1);
    off?.();
    expect(changes).toEqual(['set']);
    const { watch: _, ...plain } = createMemoryStore();
    expect(createFakeStore({ inner: plain }).watch).toBeUndefined();
    expect(createFakeStore({ watch: false }).watch).toBeUndefined();
  });
});
