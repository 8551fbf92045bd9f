// The kernel over a memory store decides and commits synchronously: every call returns a promise
// that is already settled, with the same refusals, retries, notifications and expiry as before.
import { describe, expect, it } from 'vitest';
import {
  CLAIM_RECORDS,
  type Committed,
  createKernel,
  createManualClock,
  createMemoryStore,
  type StoreChange,
} from '../src/index.js';
import { add, type Counter, counter, scripted, plainKernels } from './kernel-helpers.js';

/** Whether `promise` was already settled when it was handed over: its reaction runs before one more microtask. */
async function settledAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await null;
  return settled;
}

describe('the kernel on a memory store, synchronously', () => {
  it('settles every operation before the caller awaits it', async () => {
    const { a } = plainKernels();
    expect(await settledAtOnce(a.apply('k', counter, add, 1))).toBe(true);
    expect(await settledAtOnce(a.read('k', counter))).toBe(true);
    const acquired = a.acquire('k', counter, { ttlMs: 1_000 });
    expect(await settledAtOnce(acquired)).toBe(true);
    const taken = await acquired;
    if (!taken.ok) throw new Error(`acquire refused: ${taken.code}`);
    expect(await settledAtOnce(a.apply('k', counter, add, 1, { lease: taken.lease }))).toBe(true);
    expect(await settledAtOnce(a.renew(taken.lease, { ttlMs: 2_000 }))).toBe(true);
    expect(await settledAtOnce(a.release(taken.lease))).toBe(true);
    const claiming = a.claim('c', { id: 'e', digest: 'd', leaseMs: 1_000 });
    expect(await settledAtOnce(claiming)).toBe(true);
    const claimed = await claiming;
    if (!('status' in claimed) || claimed.status !== 'claimed') throw new Error('not claimed');
    expect(await settledAtOnce(a.settle(claimed.claim, { sent: true }))).toBe(true);
    expect(await settledAtOnce(a.abandon(claimed.claim))).toBe(true); // refused: already settled
    expect(await a.abandon(claimed.claim)).toMatchObject({ ok: false, code: 'lease_lost' });
  });

  it('has written, and told the watchers, by the time the call returns', async () => {
    const { store, a } = plainKernels();
    const seen: StoreChange[] = [];
    store.watch?.('k', (change) => seen.push(change));
    const applying = a.apply('k', counter, add, 2);
    expect(seen).toEqual([{ key: 'k', version: 1, kind: 'set' }]);
    expect(await applying).toMatchObject({ ok: true, committed: { value: { n: 2 }, storeVersion: 1 } });
  });

  it('rejects (never throws at the call) when a step or a codec throws', async () => {
    const { a } = plainKernels();
    const failing = () => {
      throw new Error('step failed');
    };
    let applying: Promise<unknown> | undefined;
    expect(() => {
      applying = a.apply('k', counter, failing, 1);
    }).not.toThrow();
    await expect(applying).rejects.toThrow('step failed');
    await a.apply('k', counter, add, 1);
    const decodeThrows = {
      ...counter,
      decode: () => {
        throw new Error('decode failed');
      },
    };
    expect(await a.apply('k', decodeThrows, add, 1)).toMatchObject({ ok: false, code: 'store_failed' });
    await expect(a.read('k', decodeThrows)).rejects.toThrow('decode failed');
    let acquiring: Promise<unknown> | undefined;
    expect(() => {
      acquiring = a.acquire('k', counter, { ttlMs: 0 });
    }).not.toThrow();
    await expect(acquiring).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('re-reads and re-runs the step when a write lands between its read and its compare-and-set', async () => {
    const { a, b } = plainKernels();
    let runs = 0;
    const racing = (current: Counter | undefined, by: number) => {
      runs++;
      if (runs === 1) void b.apply('k', counter, add, 10); // commits at once, under this step
      return add(current, by);
    };
    const done = await a.apply('k', counter, racing, 1);
    expect(runs).toBe(2);
    expect(done).toMatchObject({ ok: true, committed: { value: { n: 11 }, storeVersion: 2 } });
  });

  it('re-reads when a watcher told of an expiry writes the key before the compare-and-set', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const a = createKernel({ store, clock, owner: 'a' });
    const b = createKernel({ store, clock, owner: 'b' });
    await store.set('other', 1, { ttlMs: 50 });
    const order: string[] = [];
    store.watch?.('', (change) => {
      order.push(`${change.kind} ${change.key}`);
      if (change.key === 'other') void b.apply('k', counter, add, 10);
    });
    let runs = 0;
    const late = (current: Counter | undefined, by: number) => {
      runs++;
      if (runs === 1) clock.advance(50); // `other` expires before this step's write lands
      return add(current, by);
    };
    const done = await a.apply('k', counter, late, 1);
    expect(runs).toBe(2);
    expect(done).toMatchObject({ ok: true, committed: { value: { n: 11 } } });
    expect(order).toEqual(['expire other', 'set k', 'set k']);
  });

  it('still retries through a store that is not a memory store, and gives up with write_conflict', async () => {
    const { clock } = plainKernels();
    const store = scripted(createMemoryStore({ clock }));
    const a = createKernel({ store, clock, owner: 'a' });
    const b = createKernel({ store, clock, owner: 'b' });
    let writes = 0;
    store.before = async () => {
      if (writes++ % 2 === 0) await b.apply('k', counter, add, 10);
    };
    const done = await a.apply('k', counter, add, 1, { maxAttempts: 1 });
    expect(done).toMatchObject({ ok: false, code: 'write_conflict' });
    store.before = undefined;
    expect((await a.read('k', counter))?.value).toEqual({ n: 10 });
  });

  it('drops a record at the exact ms its deadline (plus grace) is reached', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const kernel = createKernel({ store, clock, owner: 'a', graceMs: 0 });
    const expired: StoreChange[] = [];
    store.watch?.('', (change) => {
      if (change.kind === 'expire') expired.push(change);
    });
    const withDeadline = (_: Counter | undefined, at: number) => ({
      value: { n: 1 },
      effects: [],
      deadlineAt: at,
    });
    await kernel.apply('k', counter, withDeadline, 1_100);
    clock.advance(99);
    expect((await kernel.read('k', counter))?.value).toEqual({ n: 1 });
    expect(await store.getEntry('k')).toMatchObject({ expiresAt: 1_100 });
    clock.advance(1);
    expect(expired).toEqual([]);
    await kernel.read('other', counter); // any access drops what expired, and reports it
    expect(expired).toEqual([{ key: 'k', version: null, kind: 'expire' }]);
    expect(await kernel.read('k', counter)).toBeUndefined();
  });

  it('lets a committed record stand for the read when the store still holds it', async () => {
    const { store, a } = plainKernels();
    const first = await a.apply('k', counter, add, 1);
    const basis = first.ok ? first.committed : undefined;
    expect(await a.read('k', counter, { basis: basis as Committed<Counter> })).toBe(basis);
    await store.set('k', {
      kind: CLAIM_RECORDS.kind,
      version: 1,
      data: null,
      lease: null,
      fence: 1,
      deadlineAt: null,
    });
    await expect(a.read('k', counter, { basis: basis as Committed<Counter> })).rejects.toMatchObject({
      code: 'corrupt_record',
    });
  });
});
