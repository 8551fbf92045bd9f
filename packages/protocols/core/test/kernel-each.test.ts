// Kernel.each: the records under a prefix one at a time, read as Kernel.list reads them, with
// nothing held but the record yielded, and the store's listing ended when the caller stops early.
import { describe, expect, it } from 'vitest';
import {
  createKernel,
  createMemoryStore,
  type ListedRecord,
  type Store,
  type StoreEntry,
} from '../src/index.js';
import { delegating } from '../../../../tests/support/stores.js';
import { counter, envelope, twoKernels, unlistable } from './kernel-helpers.js';

async function all<T>(items: AsyncIterable<ListedRecord<T>>): Promise<ListedRecord<T>[]> {
  const out: ListedRecord<T>[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A memory store whose listing counts the entries it handed out and whether it was ended. */
function counting(): { store: Store; listed: () => number; ended: () => boolean } {
  const inner = createMemoryStore();
  let listed = 0;
  let ended = false;
  const store: Store = {
    ...delegating(inner),
    list: (prefix) => ({
      [Symbol.asyncIterator]: () => {
        const entries = inner.list(prefix)[Symbol.asyncIterator]();
        return {
          next: async (): Promise<IteratorResult<StoreEntry>> => {
            const next = await entries.next();
            if (next.done !== true) listed++;
            return next;
          },
          return: async (): Promise<IteratorResult<StoreEntry>> => {
            ended = true;
            return (await entries.return?.()) ?? { done: true, value: undefined };
          },
        };
      },
    }),
  };
  return { store, listed: () => listed, ended: () => ended };
}

describe('Kernel.each', () => {
  it('yields what Kernel.list finds: the records read through the codec, and the ones it refuses', async () => {
    const { store, a } = twoKernels(100);
    await a.apply('k:2', counter, () => ({ value: { n: 2 }, effects: [] }), null);
    await a.apply('k:1', counter, () => ({ value: { n: 1 }, effects: [] }), null);
    await a.apply('other:1', counter, () => ({ value: { n: 9 }, effects: [] }), null);
    await store.set('k:kind', envelope('test.other', 1, { n: 3 }));
    await store.set('k:version', envelope('test.counter', 2, { n: 4 }));
    await store.set('k:plain', { n: 5 });
    const items = await all(a.each('k:', counter));
    const list = await a.list('k:', counter);
    const ok = items.flatMap((item) => (item.ok ? [item.committed] : []));
    const refused = items.flatMap((item) =>
      item.ok ? [] : [{ key: item.key, code: item.code, message: item.message }],
    );
    const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : 1);
    expect(ok.sort(byKey)).toEqual(list.records);
    expect(refused.sort(byKey)).toEqual(list.refused);
    expect(ok.map((r) => r.value.n).sort()).toEqual([1, 2]);
    expect(refused.map((r) => r.code).sort()).toEqual(['corrupt_record', 'corrupt_record', 'record_version']);
  });

  it('skips tombstones and lease-only records, and has no limit', async () => {
    const { a } = twoKernels(100);
    await a.acquire('k:leased', counter, { ttlMs: 1_000 });
    for (let n = 0; n < 25; n++)
      await a.apply(`k:${n}`, counter, () => ({ value: { n }, effects: [] }), null);
    const items = await all(a.each('k:', counter));
    expect(items).toHaveLength(25);
    expect(items.every((item) => item.ok)).toBe(true);
  });

  it('reads the store one entry at a time, and ends its listing when the caller stops', async () => {
    const { store, listed, ended } = counting();
    const kernel = createKernel({ store, owner: 'a' });
    for (let n = 0; n < 10; n++)
      await kernel.apply(`k:${n}`, counter, () => ({ value: { n }, effects: [] }), null);
    let seen = 0;
    for await (const item of kernel.each('k:', counter)) {
      expect(item.ok).toBe(true);
      expect(listed()).toBe(seen + 1); // the store handed out this entry only
      if (++seen === 3) break;
    }
    expect(listed()).toBe(3);
    expect(ended()).toBe(true);
  });

  it('throws store_failed from the iteration when the store cannot list', async () => {
    const kernel = createKernel({ store: unlistable(), owner: 'a' });
    await expect(all(kernel.each('k:', counter))).rejects.toMatchObject({
      code: 'store_failed',
      message: expect.stringContaining('connection reset'),
    });
  });
});
