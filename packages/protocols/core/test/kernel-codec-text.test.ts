// A codec that writes its data's JSON itself (`RecordCodec.text`, issue 36): the kernel stores that
// text in place of serialising the data, falls back to serialising when the codec writes none or
// throws, and still refuses what it refused before (data that is no plain JSON, a record too large).
import { describe, expect, it, vi } from 'vitest';
import { createKernel, createMemoryStore, type RecordCodec, type Store } from '../src/index.js';
import { add, type Counter, counter, scripted } from './kernel-helpers.js';

/**
 * The counter codec with a `text` that writes a space after the colon: valid JSON that reads back
 * as the data does, and that `JSON.stringify` never writes, so a stored text tells who wrote it.
 */
function spaced(text: (data: unknown) => string | undefined = (data) => `{"n": ${(data as Counter).n}}`) {
  const calls = vi.fn(text);
  const codec: RecordCodec<Counter> = { ...counter, text: (data) => calls(data) };
  return { codec, calls };
}

/** What a fresh kernel over `store` reads at `key`: the record as the store gives it back. */
async function readBack(store: Store, key: string, codec: RecordCodec<Counter>) {
  return createKernel({ store, owner: 'reader' }).read(key, codec);
}

describe('a codec that writes its data text (the memory store)', () => {
  it("stores the codec's text, answers with it, and reads it back as the data", async () => {
    const store = createMemoryStore();
    const { codec, calls } = spaced();
    const kernel = createKernel({ store, owner: 'a' });
    const made = await kernel.apply('k', codec, add, 2);
    expect(made.ok && made.text).toBe('{"n": 2}');
    expect(calls).toHaveBeenCalledWith({ n: 2 });
    const again = await kernel.apply('k', codec, add, 3, made.ok ? { basis: made.committed } : {});
    expect(again.ok && again.text).toBe('{"n": 5}');
    expect((await readBack(store, 'k', codec))?.value).toEqual({ n: 5 });
  });

  it('serialises the data when the codec writes no text, or its text throws', async () => {
    const store = createMemoryStore();
    const none = spaced(() => undefined);
    const kernel = createKernel({ store, owner: 'a' });
    const plain = await kernel.apply('a', none.codec, add, 1);
    expect(plain.ok && plain.text).toBe('{"n":1}');
    expect(none.calls).toHaveBeenCalledTimes(1);
    const throwing = spaced(() => {
      throw new Error('broken codec');
    });
    const serialised = await kernel.apply('b', throwing.codec, add, 4);
    expect(serialised.ok && serialised.text).toBe('{"n":4}');
    expect((await readBack(store, 'b', counter))?.value).toEqual({ n: 4 });
  });

  it('serialises the data when the codec gives an empty text or no string at all', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    const empty = spaced(() => '');
    const fromEmpty = await kernel.apply('a', empty.codec, add, 2);
    expect(fromEmpty.ok && fromEmpty.text).toBe('{"n":2}');
    const number = spaced(() => 42 as unknown as string);
    const fromNumber = await kernel.apply('b', number.codec, add, 3);
    expect(fromNumber.ok && fromNumber.text).toBe('{"n":3}');
    expect([empty.calls.mock.calls.length, number.calls.mock.calls.length]).toEqual([1, 1]);
    expect((await readBack(store, 'b', counter))?.value).toEqual({ n: 3 });
  });

  it('does not ask again for the text of data it wrote before (a lease taken and given back)', async () => {
    const store = createMemoryStore();
    const { codec, calls } = spaced();
    const kernel = createKernel({ store, owner: 'a' });
    await kernel.apply('k', codec, add, 7);
    const taken = await kernel.acquire('k', codec, { ttlMs: 1_000 });
    if (!taken.ok) throw new Error(taken.message);
    const kept = await kernel.apply(
      'k',
      codec,
      (n: Counter | undefined) => ({ value: n, effects: [] }),
      null,
      {
        lease: taken.lease,
        release: true,
        basis: taken.committed,
      },
    );
    expect(kept.ok).toBe(true);
    expect(calls).toHaveBeenCalledTimes(1);
    expect((await readBack(store, 'k', codec))?.lease).toBeNull();
  });

  it('still refuses data that is no plain JSON, whatever text the codec writes', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    const lying: RecordCodec<Counter> = {
      ...counter,
      encode: (value) => ({ n: value.n, at: new Date(0) }) as never,
      text: () => '{"n": 1}',
    };
    const refused = await kernel.apply('k', lying, add, 1);
    expect(refused.ok).toBe(false);
    expect(await store.getEntry('k')).toBeUndefined();
  });

  it("refuses a record whose codec text is larger than the kernel's cap", async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a', maxRecordBytes: 200 });
    const padded = spaced((data) => `{"n": ${(data as Counter).n}${' '.repeat(300)}}`);
    const refused = await kernel.apply('k', padded.codec, add, 1);
    expect(!refused.ok && refused.code).toBe('too_large');
    expect(await store.getEntry('k')).toBeUndefined();
  });
});

describe('a codec that writes its data text (a store reached through promises)', () => {
  it('answers with the text and commits the same data; the store serialises what it is given', async () => {
    const store = scripted(createMemoryStore());
    const { codec, calls } = spaced();
    const kernel = createKernel({ store, owner: 'a' });
    const made = await kernel.apply('k', codec, add, 6);
    expect(made.ok && made.text).toBe('{"n": 6}');
    expect(calls).toHaveBeenCalledTimes(1);
    if (!made.ok || made.text === undefined) throw new Error('no text');
    const stored = await store.getEntry('k');
    if (stored === undefined) throw new Error('nothing stored');
    expect(JSON.parse(made.text)).toEqual((stored.value as { data: unknown }).data);
  });
});
