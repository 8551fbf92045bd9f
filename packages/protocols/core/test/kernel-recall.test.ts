// A record the kernel wrote, read again while the memory store still holds that write: only its data
// is parsed, a lease taken and given back writes the data's text it was written with, and anything
// another writer, the clock or a closed store changed is read (or refused) as a full read would.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordCodec } from '../src/index.js';
import { add, type Counter, counter, plainKernels } from './kernel-helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const keep = (n: Counter | undefined) => ({ value: n, effects: [] });

describe('a record this kernel wrote, while the store holds that write', () => {
  it('is read by parsing only its data', async () => {
    const { a } = plainKernels();
    await a.apply('k', counter, add, 1);
    const parse = vi.spyOn(JSON, 'parse');
    const done = await a.apply('k', counter, add, 2);
    expect(done.ok && done.committed?.value).toEqual({ n: 3 });
    expect(parse.mock.calls).toEqual([['{"n":1}']]);
  });

  it('is taken and given back without serialising anything, and stored as a full write stores it', async () => {
    const { store, a, b } = plainKernels();
    await a.apply('k', counter, add, 1, { basis: null });
    const stringify = vi.spyOn(JSON, 'stringify');
    const taken = await a.acquire('k', counter, { ttlMs: 1_000 });
    if (!taken.ok) throw new Error('not taken');
    expect(taken.committed?.value).toEqual({ n: 1 });
    expect((await b.apply('k', counter, add, 1)).ok).toBe(false); // lease_held: the lease is stored
    await a.release(taken.lease);
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    expect(await store.getEntry('k')).toMatchObject({
      value: { kind: 'test.counter', version: 1, data: { n: 1 }, lease: null, fence: 1, deadlineAt: null },
    });
    expect((await b.apply('k', counter, add, 1)).ok).toBe(true);
  });

  it('hands out a lease object of its own: changing one handed out earlier changes nothing stored', async () => {
    const { store, a } = plainKernels();
    const taken = await a.acquire('k', counter, { ttlMs: 1_000, change: () => ({ n: 1 }) });
    if (!taken.ok || taken.committed?.lease == null) throw new Error('not taken');
    (taken.committed.lease as { token: number }).token = 99; // a caller breaking readonly
    const read = await a.apply('k', counter, add, 1, { lease: taken.lease });
    expect(read.ok && read.committed?.lease).toEqual({ owner: 'a', token: 1, expiresAt: 2_000 });
    expect(((await store.get('k')) as { lease: unknown }).lease).toEqual({
      owner: 'a',
      token: 1,
      expiresAt: 2_000,
    });
  });

  it('writes a change a step made in place to the value it was given, with a new deadline', async () => {
    const { store, a } = plainKernels();
    await a.apply('k', counter, add, 1);
    const taken = await a.acquire('k', counter, { ttlMs: 1_000 });
    if (!taken.ok) throw new Error('not taken');
    await a.release(taken.lease);
    const inPlace = (n: Counter | undefined) => {
      (n as { n: number }).n = 5;
      return { value: n, effects: [], deadlineAt: 10_000 };
    };
    expect((await a.apply('k', counter, inPlace, null)).ok).toBe(true);
    expect(((await store.get('k')) as { data: unknown }).data).toEqual({ n: 5 });
  });
});

describe('a record this kernel wrote, changed since', () => {
  it('is read from the store once another kernel wrote it', async () => {
    const { a, b } = plainKernels();
    await a.apply('k', counter, add, 1);
    await b.apply('k', counter, add, 10);
    const done = await a.apply('k', counter, add, 1);
    expect(done.ok && done.committed?.value).toEqual({ n: 12 });
  });

  it('is refused corrupt_record once the store holds something else there', async () => {
    const { store, a } = plainKernels();
    await a.apply('k', counter, add, 1);
    await store.set('k', { not: 'a record' });
    expect(await a.apply('k', counter, add, 1)).toMatchObject({ ok: false, code: 'corrupt_record' });
  });

  it('is read as absent once it expired', async () => {
    const { clock, a } = plainKernels();
    await a.apply(
      'k',
      counter,
      (_: Counter | undefined) => ({ value: { n: 7 }, effects: [], deadlineAt: 2_000 }),
      0,
    );
    clock.set(2_000 + 3_600_000); // deadline plus the default grace
    const done = await a.apply('k', counter, add, 1);
    expect(done.ok && done.committed?.value).toEqual({ n: 1 });
  });

  it('is refused store_failed once the store is closed', async () => {
    const { store, a } = plainKernels();
    await a.apply('k', counter, add, 1);
    await store.close();
    expect(await a.apply('k', counter, add, 1)).toMatchObject({ ok: false, code: 'store_failed' });
    expect(await a.acquire('k', counter, { ttlMs: 1_000 })).toMatchObject({
      ok: false,
      code: 'store_failed',
    });
  });
});

describe('a record this kernel wrote, read through another codec', () => {
  const other: RecordCodec<Counter> = { ...counter, kind: 'test.other' };
  const strict: RecordCodec<Counter> = {
    ...counter,
    decode: (data) => ((data as { n?: unknown }).n === 1 ? undefined : counter.decode(data)),
  };

  it('is refused corrupt_record or record_version, as a full read refuses it, naming why', async () => {
    const { a } = plainKernels();
    await a.apply('k', counter, add, 1);
    expect(await a.apply('k', other, keep, null)).toMatchObject({
      code: 'corrupt_record',
      message: 'k: holds a test.counter record, not test.other',
    });
    expect(await a.apply('k', { ...counter, version: 2 }, keep, null)).toMatchObject({
      code: 'record_version',
    });
    expect(await a.apply('k', strict, keep, null)).toMatchObject({
      code: 'corrupt_record',
      message: 'k: data is not a valid test.counter',
    });
  });
});

describe('Kernel.read of a record this kernel wrote', () => {
  it('parses only its data while the store holds that write, and reads the store once it moved on', async () => {
    const { store, a, b } = plainKernels();
    await a.apply('k', counter, add, 1);
    const parse = vi.spyOn(JSON, 'parse');
    expect((await a.read('k', counter))?.value).toEqual({ n: 1 });
    expect(parse.mock.calls).toEqual([['{"n":1}']]);
    parse.mockRestore();
    await b.apply('k', counter, add, 1);
    expect((await a.read('k', counter))?.value).toEqual({ n: 2 });
    await store.set('k', 'not a record');
    await expect(a.read('k', counter)).rejects.toMatchObject({ code: 'corrupt_record' });
  });
});
