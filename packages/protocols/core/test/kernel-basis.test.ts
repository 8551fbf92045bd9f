// Kernel.apply with a basis: a record the caller holds stands for the first read, and is trusted only
// through the compare-and-set that names its version.
import { describe, expect, it } from 'vitest';
import type { Committed } from '../src/index.js';
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

  it('throws invalid_argument for a basis of another key', async () => {
    const { a, basis } = await start();
    await expect(a.apply('other', counter, add, 1, { basis })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
