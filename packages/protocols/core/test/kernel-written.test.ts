// What the kernel saves on a memory store, counted: a basis stands for a read (acquire, read), the
// text of data it wrote is reused by a lease-only write, and a store without TTLs reads no clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Committed,
  createKernel,
  createManualClock,
  createMemoryStore,
  type RecordCodec,
} from '../src/index.js';
import { add, type Counter, counter, twoKernels } from './kernel-helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

async function made() {
  const store = createMemoryStore();
  const kernel = createKernel({ store, owner: 'a' });
  const done = await kernel.apply('k', counter, add, 1);
  if (!done.ok || done.committed === undefined) throw new Error('not made');
  return { store, kernel, basis: done.committed };
}

describe('Kernel.acquire with a basis', () => {
  it('takes the lease on the basis without reading the store', async () => {
    const { store, a } = twoKernels();
    const done = await a.apply('k', counter, add, 1);
    if (!done.ok || done.committed === undefined) throw new Error('not made');
    store.failReads = 1; // a read would fail
    const taken = await a.acquire('k', counter, { ttlMs: 1_000, basis: done.committed });
    expect(taken.ok && taken.committed?.value).toEqual({ n: 1 });
    expect(store.failReads).toBe(1);
  });

  it('takes it on a fresh read when the basis is stale: the lease holds the newer record', async () => {
    const { a, b } = twoKernels();
    const done = await a.apply('k', counter, add, 1);
    if (!done.ok || done.committed === undefined) throw new Error('not made');
    await b.apply('k', counter, add, 10);
    const taken = await a.acquire('k', counter, { ttlMs: 1_000, basis: done.committed });
    expect(taken.ok && taken.committed?.value).toEqual({ n: 11 });
    expect(await b.apply('k', counter, add, 1)).toMatchObject({ ok: false, code: 'lease_held' });
  });

  it('refuses lease_held from a fresh read, never from the basis', async () => {
    const { store, a, b } = twoKernels();
    const done = await a.apply('k', counter, add, 1);
    if (!done.ok || done.committed === undefined) throw new Error('not made');
    expect((await b.acquire('k', counter, { ttlMs: 1_000 })).ok).toBe(true);
    store.failReads = 1;
    const basis = done.committed;
    expect(await a.acquire('k', counter, { ttlMs: 1_000, basis })).toMatchObject({ code: 'store_failed' });
    expect(await a.acquire('k', counter, { ttlMs: 1_000, basis })).toMatchObject({ code: 'lease_held' });
  });
});

describe('Kernel.acquire with basis null', () => {
  it('takes the lease of a key it expects absent without reading the store', async () => {
    const { store, a } = twoKernels();
    store.failReads = 1; // a read would fail
    const taken = await a.acquire('fresh', counter, { ttlMs: 1_000, basis: null });
    expect(taken.ok && taken.lease).toMatchObject({ key: 'fresh', owner: a.owner, token: 1 });
    expect(taken.ok && taken.committed).toBeUndefined();
    expect(store.failReads).toBe(1);
  });

  it('decides on a fresh read when the key exists after all: the stored value, and lease_held under a valid lease', async () => {
    const { a, b } = twoKernels();
    await b.apply('k', counter, add, 10);
    const taken = await a.acquire('k', counter, { ttlMs: 1_000, basis: null });
    expect(taken.ok && taken.committed?.value).toEqual({ n: 10 });
    expect(taken.ok && taken.lease.token).toBe(1);
    expect(await b.acquire('k', counter, { ttlMs: 1_000, basis: null })).toMatchObject({
      ok: false,
      code: 'lease_held',
    });
  });
});

describe('Kernel.read with a basis', () => {
  it('returns the basis without parsing anything while the memory store holds its version', async () => {
    const { kernel, basis } = await made();
    const parse = vi.spyOn(JSON, 'parse');
    expect(await kernel.read('k', counter, { basis })).toBe(basis);
    expect(parse).not.toHaveBeenCalled();
  });

  it('reads the record when the store moved on, or holds nothing', async () => {
    const { store, kernel, basis } = await made();
    const other = createKernel({ store, owner: 'b' });
    await other.apply('k', counter, add, 5);
    expect((await kernel.read('k', counter, { basis }))?.value).toEqual({ n: 6 });
    await store.delete('k');
    expect(await kernel.read('k', counter, { basis })).toBeUndefined();
  });

  it('reads a store that cannot tell its version without reading', async () => {
    const { store, a } = twoKernels(); // a wrapped store: no version without a read
    const done = await a.apply('k', counter, add, 1);
    if (!done.ok || done.committed === undefined) throw new Error('not made');
    store.failReads = 1;
    await expect(a.read('k', counter, { basis: done.committed })).rejects.toMatchObject({
      code: 'store_failed',
    });
  });

  it('throws invalid_argument for a basis of another key', async () => {
    const { kernel, basis } = await made();
    await expect(kernel.read('other', counter, { basis })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});

describe('a lease-only write of a record the kernel wrote', () => {
  it('serialises nothing: the data keeps the text it was written with', async () => {
    const { store, kernel, basis } = await made();
    const stringify = vi.spyOn(JSON, 'stringify');
    const taken = await kernel.acquire('k', counter, { ttlMs: 1_000, basis });
    if (!taken.ok || taken.committed === undefined) throw new Error('not taken');
    const released = await kernel.apply(
      'k',
      counter,
      (n: Counter | undefined) => ({ value: n, effects: [] }),
      null,
      {
        lease: taken.lease,
        release: true,
        basis: taken.committed,
      },
    );
    expect(released.ok).toBe(true);
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    expect(await store.get('k')).toEqual({
      kind: 'test.counter',
      version: 1,
      data: { n: 1 },
      lease: null,
      fence: 1,
      deadlineAt: null,
    });
  });

  it('remembers the last 64 keys written: a key written again moves to the newest, the least recently written is forgotten', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    const others = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await kernel.apply(`other-${i}`, counter, add, 1);
    };
    const first = await kernel.apply('k', counter, add, 1);
    await others(0, 32);
    const moved = await kernel.apply('k', counter, add, 1, first.ok ? { basis: first.committed } : {});
    const again = await kernel.apply('k', counter, add, 1, moved.ok ? { basis: moved.committed } : {});
    if (!again.ok || again.committed === undefined) throw new Error('not made');
    await others(32, 95); // 'k' and the 63 written after it are the newest 64
    const stringify = vi.spyOn(JSON, 'stringify');
    const kept = await kernel.acquire('k', counter, { ttlMs: 1_000, basis: again.committed });
    if (!kept.ok || kept.committed === undefined) throw new Error('not taken');
    expect(stringify).not.toHaveBeenCalled(); // its data's text is reused
    await others(95, 159); // 64 newer keys
    stringify.mockClear();
    const release = (n: Counter | undefined) => ({ value: n, effects: [] });
    const options = { lease: kept.lease, release: true, basis: kept.committed };
    expect((await kernel.apply('k', counter, release, null, options)).ok).toBe(true);
    expect(stringify).toHaveBeenCalled(); // forgotten: its text is written again
  });

  it('stores what JSON.stringify writes, also for strings that need escaping', async () => {
    const quoted: RecordCodec<Counter> = { ...counter, kind: 'test "quoted" \u00e9' };
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'owner "x"' });
    const done = await kernel.apply('k', quoted, add, 1);
    if (!done.ok || done.committed === undefined) throw new Error('not made');
    const taken = await kernel.acquire('k', quoted, { ttlMs: 1_000, basis: done.committed });
    if (!taken.ok) throw new Error('not taken');
    expect(await store.get('k')).toEqual({
      kind: 'test "quoted" \u00e9',
      version: 1,
      data: { n: 1 },
      lease: { owner: 'owner "x"', token: 1, expiresAt: taken.lease.expiresAt },
      fence: 1,
      deadlineAt: null,
    });
  });

  it('writes each format version of a kind with its own number, across more kinds than it keeps heads of', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    const text = async (key: string) => JSON.stringify(await store.get(key));
    const v2: RecordCodec<Counter> = { ...counter, version: 2 };
    await kernel.apply('v1', counter, add, 1);
    await kernel.apply('v2', v2, add, 2);
    for (let i = 0; i < 70; i++)
      await kernel.apply(`many:${i}`, { ...counter, kind: `test.kind${i}` }, add, i);
    await kernel.apply('v1 again', counter, add, 3);
    expect(await text('v1')).toBe(
      `{"kind":"${counter.kind}","version":1,"data":{"n":1},"lease":null,"fence":0,"deadlineAt":null}`,
    );
    expect(await text('v2')).toBe(
      `{"kind":"${counter.kind}","version":2,"data":{"n":2},"lease":null,"fence":0,"deadlineAt":null}`,
    );
    expect(await text('many:69')).toBe(
      '{"kind":"test.kind69","version":1,"data":{"n":69},"lease":null,"fence":0,"deadlineAt":null}',
    );
    expect(await text('v1 again')).toBe(
      `{"kind":"${counter.kind}","version":1,"data":{"n":3},"lease":null,"fence":0,"deadlineAt":null}`,
    );
  });

  it('serialises data again when it is another object than the one written', async () => {
    const { kernel, basis } = await made();
    const copy: Committed<Counter> = { ...basis }; // not the copy the kernel handed out
    const stringify = vi.spyOn(JSON, 'stringify');
    expect((await kernel.acquire('k', counter, { ttlMs: 1_000, basis: copy })).ok).toBe(true);
    expect(stringify).toHaveBeenCalledTimes(1);
  });
});

describe('the memory store without TTLs', () => {
  it('reads no clock for reads and writes while no key has a TTL', async () => {
    const manual = createManualClock({ now: 0 });
    let reads = 0;
    const clock = {
      ...manual,
      now: () => {
        reads++;
        return manual.now();
      },
    };
    const store = createMemoryStore({ clock });
    await store.set('a', 1);
    await store.get('a');
    await store.compareAndSet('a', 1, 2);
    expect(reads).toBe(0);
    await store.set('b', 1, { ttlMs: 10 });
    const afterTtl = reads;
    await store.get('a');
    expect(reads).toBeGreaterThan(afterTtl); // a key with a TTL: expiry is checked on every call
  });
});

describe('Kernel.read with a basis on a closed memory store', () => {
  it('throws store_failed, as a read without a basis does', async () => {
    const { store, kernel, basis } = await made();
    await store.close();
    await expect(kernel.read('k', counter, { basis })).rejects.toMatchObject({ code: 'store_failed' });
    await expect(kernel.read('k', counter)).rejects.toMatchObject({ code: 'store_failed' });
  });
});
