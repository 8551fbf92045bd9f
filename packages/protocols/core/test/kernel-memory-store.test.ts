// The kernel over a memory store it reaches without a promise per call: the same isolation, the same
// refusals, and every call seen by whoever replaces the store's methods.
import { describe, expect, it } from 'vitest';
import { createKernel, createMemoryStore, type RecordCodec, type Store } from '../src/index.js';
import { add, type Counter, counter, jumpClock } from './kernel-helpers.js';

interface Bag {
  readonly items: number[];
}

/** A codec that hands the kernel the value itself, so a caller's later mutation could reach the store. */
const bag: RecordCodec<Bag> = {
  kind: 'test.bag',
  version: 1,
  decode: (data) => data as unknown as Bag,
  encode: (value) => value as unknown as { items: number[] },
};

function world() {
  const clock = jumpClock(1_000);
  const store = createMemoryStore({ clock });
  return { clock, store, kernel: createKernel({ store, clock, owner: 'a' }) };
}

describe('the kernel on a memory store', () => {
  it('keeps its own copy of a record: mutating the written value later changes nothing stored', async () => {
    const { store, kernel } = world();
    const written: Bag = { items: [1] };
    const done = await kernel.apply('k', bag, () => ({ value: written, effects: [] }), null);
    expect(done.ok).toBe(true);
    written.items.push(2);
    expect((await kernel.read('k', bag))?.value).toEqual({ items: [1] });
    expect(await store.get('k')).toMatchObject({ data: { items: [1] } });
  });

  it('returns a fresh copy on every read', async () => {
    const { kernel } = world();
    await kernel.apply('k', bag, () => ({ value: { items: [1] }, effects: [] }), null);
    const first = await kernel.read('k', bag);
    if (first === undefined) throw new Error('nothing read');
    first.value.items.push(5);
    const second = await kernel.read('k', bag);
    expect(second?.value).toEqual({ items: [1] });
    expect(second?.value).not.toBe(first?.value);
  });

  it('refuses a record that is not JSON as the store does, writing nothing', async () => {
    const { store, kernel } = world();
    const done = await kernel.apply('k', bag, () => ({ value: { items: [Number.NaN] }, effects: [] }), null);
    expect(done).toMatchObject({ ok: false, code: 'store_failed' });
    expect(!done.ok && done.message).toMatch(/not JSON/);
    expect(await store.get('k')).toBeUndefined();
  });

  it('stores a record whose data is nested deeper than the fast JSON check goes, byte for byte', async () => {
    const { store, kernel } = world();
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    const value = { items: [deep] } as unknown as Bag;
    const done = await kernel.apply('k', bag, () => ({ value, effects: [] }), null);
    expect(done.ok).toBe(true);
    const stored = await store.get('k');
    expect(JSON.stringify(stored)).toBe(
      `{"kind":"test.bag","version":1,"data":${JSON.stringify(value)},"lease":null,"fence":0,"deadlineAt":null}`,
    );
  });

  it('keeps the keys of its own that a stored record carries when it writes the record again', async () => {
    const { store, kernel } = world();
    const stored = {
      kind: 'test.bag',
      version: 1,
      data: { items: [1] },
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    await store.set('k', { ...stored, note: 'from a newer writer' });
    const done = await kernel.apply(
      'k',
      bag,
      (bagRead) => ({ value: { items: [...(bagRead?.items ?? []), 2] }, effects: [] }),
      null,
    );
    expect(done.ok).toBe(true);
    expect(JSON.stringify(await store.get('k'))).toBe(
      '{"kind":"test.bag","version":1,"data":{"items":[1,2]},"lease":null,"fence":0,"deadlineAt":null,"note":"from a newer writer"}',
    );
  });

  it.each([
    [
      'a cycle',
      () => {
        const items: unknown[] = [1];
        items.push(items);
        return { items };
      },
      'data.items[1]',
    ],
    ['a bigint', () => ({ items: [1n] }), 'data.items[0]'],
    ['a bigint as its whole data', () => 1n, 'data'],
  ])(
    'refuses a record holding %s as the store does (store_failed, naming where), writing nothing',
    async (_, made, path) => {
      const { store, kernel } = world();
      const value = made() as unknown as Bag;
      const done = await kernel.apply('k', bag, () => ({ value, effects: [] }), null);
      expect(done).toMatchObject({ ok: false, code: 'store_failed' });
      expect(!done.ok && done.message).toContain(`"${path}" is not JSON`);
      expect(await store.get('k')).toBeUndefined();
    },
  );

  it('refuses a record over maxRecordBytes before it reaches the store', async () => {
    const clock = jumpClock(1_000);
    const store = createMemoryStore({ clock });
    const kernel = createKernel({ store, clock, owner: 'a', maxRecordBytes: 64 });
    const done = await kernel.apply(
      'k',
      bag,
      () => ({ value: { items: Array(40).fill(7) }, effects: [] }),
      null,
    );
    expect(done).toMatchObject({ ok: false, code: 'too_large' });
    expect(await store.get('k')).toBeUndefined();
  });

  it('goes through getEntry and compareAndSet when they were replaced on the store', async () => {
    const { store, kernel } = world();
    const calls: string[] = [];
    const { getEntry, compareAndSet } = store;
    const replaced: Pick<Store, 'getEntry' | 'compareAndSet'> = {
      getEntry: (key) => {
        calls.push(`get ${key}`);
        return getEntry(key);
      },
      compareAndSet: (...args) => {
        calls.push(`cas ${args[0]}`);
        return compareAndSet(...args);
      },
    };
    Object.assign(store, replaced);
    await kernel.apply('k', counter, add, 1);
    expect((await kernel.read('k', counter))?.value).toEqual({ n: 1 } satisfies Counter);
    expect(calls).toEqual(['get k', 'cas k', 'get k']);
    store.compareAndSet = async () => {
      throw new Error('write failed');
    };
    expect(await kernel.apply('k', counter, add, 1)).toMatchObject({ ok: false, code: 'store_failed' });
  });
});
