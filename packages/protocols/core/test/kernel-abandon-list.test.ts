// Kernel.abandon (a claim given back when its effect did not run) and Kernel.list (records under a prefix).
import { describe, expect, it } from 'vitest';
import { type ClaimResult, createKernel, DEFAULT_LIST_LIMIT, type HeldClaim } from '../src/index.js';
import { counter, envelope, twoKernels, unlistable } from './kernel-helpers.js';

const effect = { id: 'send', digest: 'd1', leaseMs: 1_000 };

const setup = () => twoKernels(100);

function held(result: ClaimResult): HeldClaim {
  if (!('status' in result) || result.status !== 'claimed')
    throw new Error(`not claimed: ${JSON.stringify(result)}`);
  return result.claim;
}

describe('Kernel.abandon', () => {
  it('gives a claim back, so the next claim of the key is claimed with a new token', async () => {
    const { a, b } = setup();
    const first = held(await a.claim('c', effect));
    expect(await a.abandon(first)).toEqual({ ok: true });
    const again = held(await b.claim('c', effect));
    expect(again).toMatchObject({ owner: 'b', token: first.token + 1 });
  });

  it('leaves a tombstone that keeps the fence until the claim would have expired (plus grace)', async () => {
    const { store, a } = setup();
    const first = held(await a.claim('c', effect));
    await a.abandon(first);
    const entry = await store.getEntry('c');
    expect(entry?.value).toMatchObject({ data: null, lease: null, fence: 1, deadlineAt: first.expiresAt });
    expect(entry?.expiresAt).toBe(first.expiresAt + 100);
  });

  it('fences the claim given back: neither settle nor abandon with it lands once another owner claimed', async () => {
    const { a, b } = setup();
    const stale = held(await a.claim('c', effect));
    await a.abandon(stale);
    const fresh = held(await b.claim('c', effect));
    expect(await a.abandon(stale)).toMatchObject({ ok: false, code: 'lease_lost' });
    expect(await a.settle(stale, 'late')).toMatchObject({ ok: false, code: 'lease_lost' });
    expect(await b.settle(fresh, 'done')).toEqual({ ok: true });
    expect(await a.claim('c', effect)).toEqual({ status: 'settled', result: 'done' });
  });

  it('refuses lease_lost once the claim expired: the outcome stays unknown and is never handed out', async () => {
    const { clock, a, b } = setup();
    const first = held(await a.claim('c', effect));
    clock.advance(1_000);
    expect(await a.abandon(first)).toMatchObject({ ok: false, code: 'lease_lost', key: 'c' });
    expect(await b.claim('c', effect)).toEqual({ status: 'unknown', owner: 'a', claimedAt: 1_000 });
  });

  it('refuses lease_lost for a settled claim, which keeps its result', async () => {
    const { a } = setup();
    const first = held(await a.claim('c', effect));
    await a.settle(first, 7);
    expect(await a.abandon(first)).toMatchObject({ ok: false, code: 'lease_lost' });
    expect(await a.claim('c', effect)).toEqual({ status: 'settled', result: 7 });
  });

  it('refuses claim_conflict when the record holds a claim of another id', async () => {
    const { a } = setup();
    const first = held(await a.claim('c', effect));
    expect(await a.abandon({ ...first, id: 'other' })).toMatchObject({ ok: false, code: 'claim_conflict' });
  });

  it('returns store_failed when the write fails, and the claim stays held', async () => {
    const { store, a, b } = setup();
    const first = held(await a.claim('c', effect));
    store.failWrites = 1;
    const failed = await a.abandon(first);
    expect(failed).toMatchObject({ ok: false, code: 'store_failed', cause: new Error('write failed') });
    expect(await b.claim('c', effect)).toMatchObject({ status: 'in_flight', owner: 'a' });
  });
});

describe('Kernel.list', () => {
  it('lists the records under a prefix sorted by key, and reports the ones the codec refuses', async () => {
    const { store, a } = setup();
    const put = (n: number) => () => ({ value: { n }, effects: [] });
    await a.apply('k:2', counter, put(2), null);
    await a.apply('k:1', counter, put(1), null);
    await a.apply('other:1', counter, put(9), null);
    await store.set('k:kind', envelope('test.other', 1, { n: 3 }));
    await store.set('k:version', envelope('test.counter', 2, { n: 4 }));
    await store.set('k:data', envelope('test.counter', 1, 'not a counter'));
    await store.set('k:plain', { n: 5 });
    const found = await a.list('k:', counter);
    expect(found.records.map((r) => [r.key, r.value.n, r.storeVersion > 0])).toEqual([
      ['k:1', 1, true],
      ['k:2', 2, true],
    ]);
    expect(found.refused.map((r) => [r.key, r.code])).toEqual([
      ['k:data', 'corrupt_record'],
      ['k:kind', 'corrupt_record'],
      ['k:plain', 'corrupt_record'],
      ['k:version', 'record_version'],
    ]);
    expect(found.truncated).toBe(false);
  });

  it('skips tombstones and lease-only records: they hold no value', async () => {
    const { store, a } = setup();
    await a.acquire('k:leased', counter, { ttlMs: 1_000 });
    const lease = await a.acquire('k:gone', counter, { ttlMs: 1_000 });
    if (!lease.ok) throw new Error('no lease');
    await a.apply('k:gone', counter, () => ({ value: { n: 1 }, effects: [] }), null, { lease: lease.lease });
    await a.apply('k:gone', counter, () => ({ value: undefined, effects: [] }), null, { lease: lease.lease });
    expect((await store.getEntry('k:gone'))?.value).toMatchObject({ data: null, fence: 1 });
    expect(await a.list('k:', counter)).toEqual({ records: [], refused: [], truncated: false });
  });

  it('reads at most limit entries and says so', async () => {
    const { a } = setup();
    for (const n of [1, 2, 3]) await a.apply(`k:${n}`, counter, () => ({ value: { n }, effects: [] }), null);
    const found = await a.list('k:', counter, { limit: 2 });
    expect(found.records).toHaveLength(2);
    expect(found.truncated).toBe(true);
    expect((await a.list('k:', counter, { limit: 3 })).truncated).toBe(false);
    expect(DEFAULT_LIST_LIMIT).toBe(10_000);
    await expect(a.list('k:', counter, { limit: 0 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('throws store_failed when the store cannot list', async () => {
    const kernel = createKernel({ store: unlistable(), owner: 'a' });
    await expect(kernel.list('k:', counter)).rejects.toMatchObject({
      code: 'store_failed',
      message: expect.stringContaining('connection reset'),
    });
  });
});
