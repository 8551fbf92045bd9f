// Kernel.acquire with `change`: the lease and a change of the value it guards, in one compare-and-set,
// on the memory store's synchronous path and on any other store (a wrapper, so every call is awaited).
import { describe, expect, it } from 'vitest';
import { createKernel, createMemoryStore, DEFAULT_GRACE_MS, type Lease } from '../src/index.js';
import { add, type Counter, counter, jumpClock, twoKernels } from './kernel-helpers.js';

/** A kernel over a plain memory store (the synchronous path), on a clock at 1,000. */
function memoryKernel() {
  const clock = jumpClock(1_000);
  const store = createMemoryStore({ clock });
  return { clock, store, a: createKernel({ store, clock, owner: 'a' }) };
}

const paths = [
  ['memory store', memoryKernel],
  ['another store', () => twoKernels()],
] as const;

describe.each(paths)('Kernel.acquire with change (%s)', (_name, world) => {
  it('writes the lease and the changed value in one compare-and-set, the change seeing the new lease', async () => {
    const { store, a } = world();
    const made = await a.apply('k', counter, add, 1);
    const before = made.ok ? made.committed?.storeVersion : undefined;
    const seen: Array<[Counter | undefined, Lease, number]> = [];
    const taken = await a.acquire('k', counter, {
      ttlMs: 500,
      change: (current, lease, now) => {
        seen.push([current, lease, now]);
        return { n: (current?.n ?? 0) + lease.token };
      },
    });
    if (!taken.ok) throw new Error(taken.code);
    expect(taken.lease).toMatchObject({ key: 'k', owner: 'a', token: 1, expiresAt: 1_500 });
    expect(seen).toEqual([[{ n: 1 }, taken.lease, 1_000]]);
    expect(taken.committed).toMatchObject({ value: { n: 2 }, fence: 1, lease: { owner: 'a', token: 1 } });
    expect(taken.committed?.storeVersion).toBe((before ?? 0) + 1); // one write, not two
    const entry = await store.getEntry('k');
    expect(entry?.version).toBe(taken.committed?.storeVersion);
    expect(entry?.value).toMatchObject({ data: { n: 2 }, fence: 1, lease: { owner: 'a', token: 1 } });
  });

  it('runs no change while another holds the lease, and writes nothing', async () => {
    const { store, a } = world();
    const other = createKernel({ store, clock: jumpClock(1_000), owner: 'b' });
    await other.acquire('k', counter, { ttlMs: 500 });
    const version = (await store.getEntry('k'))?.version;
    let runs = 0;
    const refused = await a.acquire('k', counter, {
      ttlMs: 500,
      change: (current) => {
        runs++;
        return current;
      },
    });
    expect(refused).toMatchObject({ ok: false, code: 'lease_held' });
    expect(runs).toBe(0);
    expect((await store.getEntry('k'))?.version).toBe(version);
  });

  it('keeps the value as read when the change returns it or undefined, and takes the lease of an absent key', async () => {
    const { a } = world();
    const absent = await a.acquire('none', counter, { ttlMs: 500, change: () => undefined });
    expect(absent).toMatchObject({ ok: true, committed: undefined, lease: { token: 1 } });
    await a.apply('k', counter, add, 4);
    const kept = await a.acquire('k', counter, { ttlMs: 500, change: (current) => current });
    expect(kept.ok && kept.committed?.value).toEqual({ n: 4 });
    if (!kept.ok) throw new Error(kept.code);
    await a.release(kept.lease);
    const same = await a.acquire('k', counter, { ttlMs: 500, change: () => undefined });
    expect(same.ok && same.committed).toMatchObject({ value: { n: 4 }, fence: 2 });
  });

  it('takes the lease on a basis without a read, and a stale basis re-runs the change on a fresh read', async () => {
    const { a } = world();
    const made = await a.apply('k', counter, add, 1);
    if (!made.ok || made.committed === undefined) throw new Error('not made');
    const first = await a.acquire('k', counter, {
      ttlMs: 500,
      basis: made.committed,
      change: (current) => ({ n: (current?.n ?? 0) * 10 }),
    });
    if (!first.ok || first.committed === undefined) throw new Error('not taken');
    expect(first.committed.value).toEqual({ n: 10 });
    await a.release(first.lease); // the store moved on: `first.committed` is stale now
    const second = await a.acquire('k', counter, {
      ttlMs: 500,
      basis: first.committed,
      change: (current) => ({ n: (current?.n ?? 0) + 1 }),
    });
    expect(second.ok && second.committed).toMatchObject({ value: { n: 11 }, fence: 2 });
  });
});

describe.each(paths)('Kernel.acquire with change and lifeMs (%s)', (_name, world) => {
  it('sets the deadline of a changed record to now + lifeMs in the same write, so the store drops it after', async () => {
    const { clock, store, a } = world();
    const taken = await a.acquire('k', counter, { ttlMs: 500, lifeMs: 10_000, change: () => ({ n: 1 }) });
    if (!taken.ok) throw new Error(taken.code);
    expect(taken.committed).toMatchObject({ value: { n: 1 }, deadlineAt: 11_000, storeVersion: 1 });
    expect((await store.getEntry('k'))?.value).toMatchObject({
      deadlineAt: 11_000,
      lease: { expiresAt: 1_500 },
    });
    clock.set(11_000 + DEFAULT_GRACE_MS); // the deadline and the kernel's grace are past
    expect(await a.read('k', counter)).toBeUndefined();
  });

  it('keeps the deadline as read when the change keeps the value', async () => {
    const { a } = world();
    await a.apply('k', counter, () => ({ value: { n: 4 }, effects: [], deadlineAt: 9_000 }), null);
    const kept = await a.acquire('k', counter, { ttlMs: 500, lifeMs: 60_000, change: (current) => current });
    expect(kept.ok && kept.committed).toMatchObject({ value: { n: 4 }, deadlineAt: 9_000 });
  });

  it('refuses a lifeMs that is not a positive number, or one given without a change, and writes nothing', async () => {
    const { store, a } = world();
    for (const lifeMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(
        a.acquire('k', counter, { ttlMs: 500, lifeMs, change: () => ({ n: 1 }) }),
      ).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    }
    await expect(a.acquire('k', counter, { ttlMs: 500, lifeMs: 1_000 })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect(await store.getEntry('k')).toBeUndefined();
  });
});

describe('Kernel.acquire with change, racing', () => {
  it('re-runs the change on a fresh read when another write lands first, losing neither', async () => {
    const { store, a, b } = twoKernels();
    await a.apply('k', counter, add, 1);
    let raced = false;
    store.before = async () => {
      if (raced) return;
      raced = true;
      await b.apply('k', counter, add, 100); // lands between a's read and its compare-and-set
    };
    const runs: Array<number | undefined> = [];
    const taken = await a.acquire('k', counter, {
      ttlMs: 500,
      change: (current) => {
        runs.push(current?.n);
        return { n: (current?.n ?? 0) + 1 };
      },
    });
    expect(runs).toEqual([1, 101]);
    expect(taken.ok && taken.committed?.value).toEqual({ n: 102 });
  });

  it('fences the change: a write under the lease it replaced is refused', async () => {
    const { a, b } = twoKernels();
    const old = await a.acquire('k', counter, { ttlMs: 500, change: () => ({ n: 1 }) });
    if (!old.ok) throw new Error(old.code);
    const forced = await b.acquire('k', counter, { ttlMs: 500, force: true, change: () => ({ n: 2 }) });
    expect(forced.ok && forced.committed?.value).toEqual({ n: 2 });
    expect(await a.apply('k', counter, add, 1, { lease: old.lease })).toMatchObject({
      ok: false,
      code: 'lease_lost',
    });
  });
});
