// The text a kernel write answers with: the JSON text of the committed data, as the store got it, so
// that a caller can keep the text of a record it holds for long and decode it later without a read.
import { describe, expect, it } from 'vitest';
import { createKernel, createMemoryStore, type RecordCodec, type Store } from '../src/index.js';
import { add, type Counter, counter, scripted } from './kernel-helpers.js';

/** The memory store reached directly (no promise), and the same store behind async calls only. */
const stores: [string, () => Store][] = [
  ['the memory store', () => createMemoryStore()],
  ['a store reached through promises', () => scripted(createMemoryStore())],
];

/** The data text inside the record the store holds at `key`. */
async function storedDataText(store: Store, key: string): Promise<string> {
  const entry = await store.getEntry(key);
  if (entry === undefined) throw new Error(`nothing stored at ${key}`);
  return JSON.stringify((entry.value as { data: unknown }).data);
}

describe.each(stores)('Kernel write text, on %s', (_, makeStore) => {
  it('answers a write with the text of its committed data, the text the store holds', async () => {
    const store = makeStore();
    const kernel = createKernel({ store, owner: 'a' });
    const made = await kernel.apply('k', counter, add, 2);
    expect(made.ok && made.text).toBe('{"n":2}');
    const again = await kernel.apply('k', counter, add, 3, made.ok ? { basis: made.committed } : {});
    expect(again.ok && again.text).toBe('{"n":5}');
    expect(again.ok && again.text).toBe(await storedDataText(store, 'k'));
    if (!again.ok || again.text === undefined || again.committed === undefined) throw new Error('no text');
    expect(counter.decode(JSON.parse(again.text))).toEqual(again.committed.value);
  });

  it('answers no text when nothing was written or the record was deleted', async () => {
    const kernel = createKernel({ store: makeStore(), owner: 'a' });
    await kernel.apply('k', counter, add, 1);
    const kept = await kernel.apply(
      'k',
      counter,
      (current: Counter | undefined) => ({ value: current, effects: [] }),
      null,
    );
    expect(kept.ok && kept.committed?.value).toEqual({ n: 1 });
    expect(kept.ok && kept.text).toBeUndefined();
    const deleted = await kernel.apply('k', counter, add, null);
    expect(deleted.ok && [deleted.committed, deleted.text]).toEqual([undefined, undefined]);
  });

  it('answers a lease taken (with or without a change) and one given back with the text written', async () => {
    const store = makeStore();
    const kernel = createKernel({ store, owner: 'a' });
    await kernel.apply('k', counter, add, 4);
    const taken = await kernel.acquire('k', counter, { ttlMs: 1_000 });
    expect(taken.ok && taken.text).toBe('{"n":4}');
    if (!taken.ok) throw new Error('not taken');
    const released = await kernel.apply('k', counter, add, 1, { lease: taken.lease, release: true });
    expect(released.ok && released.text).toBe('{"n":5}');
    const changed = await kernel.acquire('k', counter, {
      ttlMs: 1_000,
      change: (n) => ({ n: (n?.n ?? 0) * 10 }),
    });
    expect(changed.ok && changed.text).toBe('{"n":50}');
    expect(await storedDataText(store, 'k')).toBe('{"n":50}');
  });

  it('answers the text of the data as encoded, not of the value the step returned', async () => {
    // a codec whose stored form differs from its value: the text is the stored form's
    const wrapped: RecordCodec<{ n: number; extra?: string }> = {
      kind: 'test.wrapped',
      version: 1,
      decode: (data) => (Array.isArray(data) && typeof data[0] === 'number' ? { n: data[0] } : undefined),
      encode: (value) => [value.n],
    };
    const kernel = createKernel({ store: makeStore(), owner: 'a' });
    const done = await kernel.apply(
      'w',
      wrapped,
      () => ({ value: { n: 7, extra: 'not stored' }, effects: [] }),
      null,
    );
    expect(done.ok && done.text).toBe('[7]');
  });
});
