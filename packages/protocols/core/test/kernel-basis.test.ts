// Kernel.apply with a basis: a record the caller holds stands for the first read, and is trusted only
// through the compare-and-set that names its version.
import { describe, expect, it, vi } from 'vitest';
import { type Committed, createKernel, createMemoryStore } from '../src/index.js';
import { add, type Counter, counter, twoKernels } from './kernel-helpers.js';

async function start() {
  const world = twoKernels();
  const made = await world.a.apply('k', counter, add, 1);
  if (!made.ok || made.committed === undefined) throw new Error('not made');
  return { ...world, basis: made.committed };
}

describe('Kernel.apply with a basis', () => {
  it('commits on a basis that is still the stored record without reading the store', async () => {
    const { store, a, basis } = await start();
    store.failReads = 1; // a read would fail
    const done = await a.apply('k', counter, add, 2, { basis });
    expect(done.ok && done.committed?.value).toEqual({ n: 3 });
    expect(store.failReads).toBe(1);
  });

  it('runs the step again on a fresh read when the basis is stale, losing no commit', async () => {
    const { a, b, basis } = await start();
    await b.apply('k', counter, add, 10); // another replica moved the record on
    const done = await a.apply('k', counter, add, 2, { basis });
    expect(done.ok && done.committed?.value).toEqual({ n: 13 });
  });

  it('answers a step that writes nothing, or a refusal, from a fresh read, never from the basis', async () => {
    const { store, a, b, basis } = await start();
    const same = (current: Counter | undefined) => ({ value: current, effects: [current?.n] });
    await b.apply('k', counter, add, 10);
    const answered = await a.apply('k', counter, same, null, { basis });
    expect(answered.ok && answered.effects).toEqual([11]);
    const lease = await b.acquire('k', counter, { ttlMs: 1_000 });
    expect(lease.ok).toBe(true);
    const stale: Committed<Counter> = { ...basis, storeVersion: basis.storeVersion }; // says: no lease
    store.failReads = 1;
    expect(await a.apply('k', counter, add, 1, { basis: stale })).toMatchObject({
      ok: false,
      code: 'store_failed',
    });
    expect(await a.apply('k', counter, add, 1, { basis: stale })).toMatchObject({
      ok: false,
      code: 'lease_held',
    });
  });

  it('takes basis null as "absent": a first write without a read, re-run on a fresh read when the key exists', async () => {
    const { store, a, b } = twoKernels();
    store.failReads = 1; // a read would fail
    const first = await a.apply('fresh', counter, add, 2, { basis: null });
    expect(first.ok && first.committed?.value).toEqual({ n: 2 });
    expect(store.failReads).toBe(1);
    store.failReads = 0;
    await b.apply('taken', counter, add, 10); // another replica wrote it first
    const second = await a.apply('taken', counter, add, 2, { basis: null });
    expect(second.ok && second.committed?.value).toEqual({ n: 12 });
  });

  it('a delete on basis null is decided on a fresh read: a record written meanwhile is deleted', async () => {
    const { a, b } = twoKernels();
    await b.apply('k', counter, add, 10);
    const drop = (_current: Counter | undefined) => ({ value: undefined, effects: [] });
    const done = await a.apply('k', counter, drop, null, { basis: null });
    expect(done.ok).toBe(true);
    expect(await a.read('k', counter)).toBeUndefined();
  });

  it('throws invalid_argument for a basis of another key', async () => {
    const { a, basis } = await start();
    await expect(a.apply('other', counter, add, 1, { basis })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});

describe('a kernel write into the memory store', () => {
  it('serialises the record once: the store takes the text the size check made', async () => {
    // the memory store itself (a wrapped one is written through its public methods, which serialise)
    const a = createKernel({ store: createMemoryStore(), owner: 'a' });
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const done = await a.apply('k', counter, add, 2);
      expect(done.ok).toBe(true);
      expect(stringify).toHaveBeenCalledTimes(1);
    } finally {
      stringify.mockRestore();
    }
    expect(await a.read('k', counter)).toMatchObject({ value: { n: 2 } });
  });

  it('still refuses a record that is not JSON (a NaN the size check turned into null)', async () => {
    const { a } = twoKernels();
    const nan = (_current: Counter | undefined) => ({ value: { n: Number.NaN }, effects: [] });
    expect(await a.apply('k', counter, nan, null)).toMatchObject({ ok: false, code: 'store_failed' });
  });
});
