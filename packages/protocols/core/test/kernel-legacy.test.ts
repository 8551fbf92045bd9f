// Values a package stored before it kept its records in the kernel: read through the codec's
// `legacy`, migrated by the next write with one compare-and-set, refused without it.
import { describe, expect, it } from 'vitest';
import { createKernel, createMemoryStore, isParleyError, type RecordCodec } from '../src/index.js';
import { add, type Counter, counter, scripted } from './kernel-helpers.js';

/** The counter codec that also reads the bare `{ count }` an earlier release stored. */
const migrating: RecordCodec<Counter> = {
  ...counter,
  legacy: (stored) =>
    typeof stored === 'object' && stored !== null && typeof (stored as { count?: unknown }).count === 'number'
      ? { n: (stored as { count: number }).count }
      : undefined,
};

describe('a codec with legacy', () => {
  it('reads a value stored before the kernel as committed, with its store version, no lease and no deadline', async () => {
    const store = createMemoryStore();
    await store.set('k', { count: 4 });
    const version = (await store.getEntry('k'))?.version;
    const committed = await createKernel({ store, owner: 'a' }).read('k', migrating);
    expect(committed).toEqual({
      key: 'k',
      value: { n: 4 },
      storeVersion: version,
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    expect(await store.get('k')).toEqual({ count: 4 }); // a read writes nothing
  });

  it('stores it as a kernel record on the next write, starting from the old value', async () => {
    const store = createMemoryStore();
    await store.set('k', { count: 4 });
    const kernel = createKernel({ store, owner: 'a' });
    const done = await kernel.apply('k', migrating, add, 1);
    expect(done.ok && done.committed?.value).toEqual({ n: 5 });
    expect(await store.get('k')).toMatchObject({ kind: 'test.counter', version: 1, data: { n: 5 } });
    expect((await kernel.read('k', counter))?.value).toEqual({ n: 5 }); // now readable without legacy
  });

  it('keeps the old value when a lease is taken on it before any write', async () => {
    const store = createMemoryStore();
    await store.set('k', { count: 4 });
    const taken = await createKernel({ store, owner: 'a' }).acquire('k', migrating, { ttlMs: 1_000 });
    expect(taken.ok && taken.committed?.value).toEqual({ n: 4 });
    expect(await store.get('k')).toMatchObject({ data: { n: 4 }, lease: { owner: 'a' } });
  });

  it('migrates once when the old value changes under the write: the step runs again on the new one', async () => {
    const base = createMemoryStore();
    await base.set('k', { count: 4 });
    const store = scripted(base);
    let raced = false;
    store.before = async () => {
      if (raced) return;
      raced = true;
      await base.set('k', { count: 10 }); // an old release still writing
    };
    const done = await createKernel({ store, owner: 'a' }).apply('k', migrating, add, 1);
    expect(done.ok && done.committed?.value).toEqual({ n: 11 });
  });

  it('refuses with corrupt_record a value neither the codec nor legacy reads, never overwriting it', async () => {
    const store = createMemoryStore();
    await store.set('k', { total: 'four' });
    const kernel = createKernel({ store, owner: 'a' });
    const done = await kernel.apply('k', migrating, add, 1);
    expect(!done.ok && done.code).toBe('corrupt_record');
    const thrown = await kernel.read('k', counter).catch((error: unknown) => error);
    expect(isParleyError(thrown, 'corrupt_record')).toBe(true);
    expect(await store.get('k')).toEqual({ total: 'four' });
  });

  it('lists old values with the kernel records under a prefix', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    await store.set('c:1', { count: 1 });
    await kernel.apply('c:2', migrating, add, 2);
    const listed = await kernel.list('c:', migrating);
    expect(listed.records.map((r) => [r.key, r.value.n])).toEqual([
      ['c:1', 1],
      ['c:2', 2],
    ]);
    expect(listed.refused).toEqual([]);
  });
});
