import { describe, expect, it } from 'vitest';
import {
  createKernel,
  createManualClock,
  createMemoryStore,
  DEFAULT_GRACE_MS,
  isParleyError,
  type KernelStep,
} from '../src/index.js';
import { add, type Counter, counter, jumpClock, scripted } from './kernel-helpers.js';

describe('createKernel apply', () => {
  it('commits a step on the stored value and returns its effects', async () => {
    const kernel = createKernel({ store: createMemoryStore(), owner: 'a' });
    await kernel.apply('k', counter, add, 2);
    const done = await kernel.apply('k', counter, add, 3);
    expect(done.ok && done.committed?.value).toEqual({ n: 5 });
    expect(done.ok && done.effects).toEqual(['+3']);
    expect((await kernel.read('k', counter))?.value).toEqual({ n: 5 });
  });

  it('starts every step from the stored record, so two kernels never lose each other’s writes', async () => {
    const store = createMemoryStore();
    const a = createKernel({ store, owner: 'a' });
    const b = createKernel({ store, owner: 'b' });
    await Promise.all([
      a.apply('k', counter, add, 7),
      b.apply('k', counter, add, 2),
      a.apply('k', counter, add, 1),
    ]);
    expect((await a.read('k', counter))?.value).toEqual({ n: 10 });
  });

  it('re-reads and re-runs the step after losing a race', async () => {
    const base = createMemoryStore();
    const store = scripted(base);
    const kernel = createKernel({ store, owner: 'a' });
    const other = createKernel({ store: base, owner: 'b' });
    let raced = false;
    store.before = async () => {
      if (raced) return;
      raced = true;
      await other.apply('k', counter, add, 10);
    };
    const seen: (number | undefined)[] = [];
    const step: KernelStep<Counter, number, never> = (current, by) => {
      seen.push(current?.n);
      return { value: { n: (current?.n ?? 0) + by }, effects: [] };
    };
    const done = await kernel.apply('k', counter, step, 1);
    expect(done.ok && done.committed?.value).toEqual({ n: 11 });
    expect(seen).toEqual([undefined, 10]);
  });

  it('refuses with write_conflict after maxAttempts lost races, writing nothing of its own', async () => {
    const base = createMemoryStore();
    const store = scripted(base);
    const kernel = createKernel({ store, owner: 'a' });
    const other = createKernel({ store: base, owner: 'b' });
    store.before = async () => {
      await other.apply('k', counter, add, 10);
    };
    const done = await kernel.apply('k', counter, add, 1, { maxAttempts: 3 });
    expect(!done.ok && done.code).toBe('write_conflict');
    expect((await other.read('k', counter))?.value).toEqual({ n: 30 });
  });

  it('refuses with store_failed when a write or a read throws, and commits nothing', async () => {
    const store = scripted(createMemoryStore());
    const kernel = createKernel({ store, owner: 'a' });
    store.failWrites = 1;
    const written = await kernel.apply('k', counter, add, 1);
    expect(!written.ok && written.code).toBe('store_failed');
    store.failReads = 1;
    const read = await kernel.apply('k', counter, add, 1);
    expect(!read.ok && read.code).toBe('store_failed');
    expect(await kernel.read('k', counter)).toBeUndefined();
    store.failReads = 1;
    await expect(kernel.read('k', counter)).rejects.toSatisfy((err) => isParleyError(err, 'store_failed'));
  });

  it('writes nothing when the step returns the value it was given', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    await kernel.apply('k', counter, add, 1);
    const before = (await store.getEntry('k'))?.version;
    const same: KernelStep<Counter, null, string> = (current) => ({ value: current, effects: ['seen'] });
    const done = await kernel.apply('k', counter, same, null);
    expect(done.ok && done.effects).toEqual(['seen']);
    expect(done.ok && done.committed?.storeVersion).toBe(before);
    expect((await store.getEntry('k'))?.version).toBe(before);
  });

  it('lets a throwing step propagate with nothing written', async () => {
    const kernel = createKernel({ store: createMemoryStore(), owner: 'a' });
    const boom: KernelStep<Counter, null, never> = () => {
      throw new Error('host callback failed');
    };
    await expect(kernel.apply('k', counter, boom, null)).rejects.toThrow('host callback failed');
    expect(await kernel.read('k', counter)).toBeUndefined();
  });

  it('deletes a record when the step returns no value, and does nothing for an absent one', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    const none = await kernel.apply('k', counter, add, null);
    expect(none.ok && none.committed).toBeUndefined();
    await kernel.apply('k', counter, add, 1);
    await kernel.apply('k', counter, add, null);
    expect(await store.getEntry('k')).toBeUndefined();
  });

  it('refuses a record larger than maxRecordBytes with too_large', async () => {
    const kernel = createKernel({ store: createMemoryStore(), owner: 'a', maxRecordBytes: 100 });
    const big: KernelStep<Counter, string, never> = () => ({
      value: { n: 1, pad: 'é'.repeat(40) } as Counter,
      effects: [],
    });
    const wide = { ...counter, encode: (value: Counter) => ({ ...value }) };
    const done = await kernel.apply('k', wide, big, '');
    expect(!done.ok && done.code).toBe('too_large');
  });
});

describe('record checks', () => {
  it('refuses a corrupt record or another kind with corrupt_record, never overwriting it', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    for (const value of [
      'junk',
      { kind: 'other', version: 1, data: 1, lease: null, fence: 0, deadlineAt: null },
      { kind: 'test.counter', version: 1, data: { n: 'x' }, lease: null, fence: 0, deadlineAt: null },
      { kind: 'test.counter', version: 1, data: { n: 1 }, lease: { owner: 1 }, fence: 0, deadlineAt: null },
    ]) {
      await store.set('k', value);
      const done = await kernel.apply('k', counter, add, 1);
      expect(!done.ok && done.code).toBe('corrupt_record');
      await expect(kernel.read('k', counter)).rejects.toSatisfy((err) =>
        isParleyError(err, 'corrupt_record'),
      );
      expect(await store.get('k')).toEqual(value);
    }
  });

  it('refuses a record of another format version with record_version', async () => {
    const store = createMemoryStore();
    const kernel = createKernel({ store, owner: 'a' });
    const stored = {
      kind: 'test.counter',
      version: 2,
      data: { n: 1 },
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    await store.set('k', stored);
    const done = await kernel.apply('k', counter, add, 1);
    expect(!done.ok && done.code).toBe('record_version');
    await expect(kernel.read('k', counter)).rejects.toSatisfy((err) => isParleyError(err, 'record_version'));
    expect(await store.get('k')).toEqual(stored);
  });
});

describe('lifetimes', () => {
  it('derives the store TTL from the stored deadline plus the grace, not from creation', async () => {
    const clock = createManualClock({ now: 0 });
    const store = createMemoryStore({ clock });
    const kernel = createKernel({ store, clock, owner: 'a', graceMs: 1_000 });
    const until: KernelStep<Counter, number, never> = (current, deadlineAt) => ({
      value: { n: (current?.n ?? 0) + 1 },
      effects: [],
      deadlineAt,
    });
    await kernel.apply('k', counter, until, 10 * 86_400_000);
    clock.advance(8 * 86_400_000);
    await kernel.apply('k', counter, add, 1); // keeps the stored deadline
    expect((await store.getEntry('k'))?.expiresAt).toBe(10 * 86_400_000 + 1_000);
    clock.advance(2 * 86_400_000 + 999);
    expect((await kernel.read('k', counter))?.value).toEqual({ n: 2 });
    clock.advance(1);
    expect(await kernel.read('k', counter)).toBeUndefined();
  });

  it('keeps a record without a deadline forever, and uses one hour of grace by default', async () => {
    const clock = createManualClock({ now: 0 });
    const store = createMemoryStore({ clock });
    const kernel = createKernel({ store, clock, owner: 'a' });
    await kernel.apply('k', counter, add, 1);
    expect((await store.getEntry('k'))?.expiresAt).toBeUndefined();
    await kernel.apply('k', counter, (c) => ({ value: c, effects: [], deadlineAt: 50 }), null);
    expect((await store.getEntry('k'))?.expiresAt).toBe(50 + DEFAULT_GRACE_MS);
  });

  it('refuses bad options with invalid_argument', () => {
    const store = createMemoryStore();
    for (const options of [{ owner: '' }, { graceMs: -1 }, { maxRecordBytes: 0 }]) {
      expect(() => createKernel({ store, ...options })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });

  it('gives every kernel a unique owner by default', () => {
    const store = createMemoryStore();
    expect(createKernel({ store }).owner).not.toBe(createKernel({ store }).owner);
  });

  it('moves with a clock that jumps backwards: a step sees the time it is given', async () => {
    const clock = jumpClock(5_000);
    const kernel = createKernel({ store: createMemoryStore(), clock, owner: 'a' });
    const stamp: KernelStep<Counter, null, never> = (_c, _e, now) => ({ value: { n: now }, effects: [] });
    await kernel.apply('k', counter, stamp, null);
    clock.set(1_000);
    const done = await kernel.apply('k', counter, stamp, null);
    expect(done.ok && done.committed?.value).toEqual({ n: 1_000 });
  });
});
