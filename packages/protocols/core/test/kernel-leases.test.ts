import { describe, expect, it } from 'vitest';
import type { createKernel, Lease } from '../src/index.js';
import { add, counter, twoKernels } from './kernel-helpers.js';

const setup = () => twoKernels(10_000);

async function take(kernel: ReturnType<typeof createKernel>, key = 'k', ttlMs = 1_000): Promise<Lease> {
  const got = await kernel.acquire(key, counter, { ttlMs });
  if (!got.ok) throw new Error(`acquire refused: ${got.code}`);
  return got.lease;
}

describe('leases', () => {
  it('keeps the lease in the record: writes without it are refused while it is valid', async () => {
    const { a, b } = setup();
    await a.apply('k', counter, add, 1);
    const lease = await take(a);
    expect(lease).toEqual({ key: 'k', owner: 'a', token: 1, expiresAt: 2_000 });
    const blocked = await b.apply('k', counter, add, 1);
    expect(!blocked.ok && blocked.code).toBe('lease_held');
    const stolen = await b.acquire('k', counter, { ttlMs: 1_000 });
    expect(!stolen.ok && stolen.code).toBe('lease_held');
    const done = await a.apply('k', counter, add, 1, { lease });
    expect(done.ok && done.committed).toMatchObject({ value: { n: 2 }, lease: { owner: 'a', token: 1 } });
  });

  it('fences a stale holder after a forward clock jump: its write fails once another owner took the lease', async () => {
    const { clock, a, b } = setup();
    const old = await take(a);
    clock.advance(5_000);
    const fresh = await take(b);
    expect(fresh.token).toBe(2);
    clock.set(1_500); // the old holder's clock says its lease is still valid
    const stale = await a.apply('k', counter, add, 1, { lease: old });
    expect(!stale.ok && stale.code).toBe('lease_lost');
    const renewed = await a.renew(old, { ttlMs: 1_000 });
    expect(!renewed.ok && renewed.code).toBe('lease_lost');
    await a.release(old); // ignored: not the holder
    expect((await b.apply('k', counter, add, 1, { lease: fresh })).ok).toBe(true);
  });

  it('still fences a stale holder by its owner once the record and its fence expired from the store', async () => {
    const { clock, a, b } = setup();
    const old = await take(a);
    clock.advance(60_000); // past expiry + grace: the lease-only record is gone
    const fresh = await take(b);
    expect(fresh.token).toBe(1);
    clock.set(1_500);
    const stale = await a.apply('k', counter, add, 1, { lease: old });
    expect(!stale.ok && stale.code).toBe('lease_lost');
  });

  it('refuses a write under an expired lease even when nobody took it over', async () => {
    const { clock, a } = setup();
    const lease = await take(a);
    clock.advance(1_000);
    const done = await a.apply('k', counter, add, 1, { lease });
    expect(!done.ok && done.code).toBe('lease_lost');
  });

  it('keeps a lease valid longer when the clock jumps backwards, never shorter', async () => {
    const { clock, a, b } = setup();
    await take(a);
    clock.set(0);
    const stolen = await b.acquire('k', counter, { ttlMs: 1_000 });
    expect(!stolen.ok && stolen.code).toBe('lease_held');
  });

  it('renews a valid lease to now + ttlMs with the same token', async () => {
    const { clock, a } = setup();
    const lease = await take(a);
    clock.advance(900);
    const renewed = await a.renew(lease, { ttlMs: 1_000 });
    expect(renewed.ok && renewed.lease).toEqual({ ...lease, expiresAt: 2_900 });
  });

  it('releases a lease so another owner may take it with a higher token', async () => {
    const { a, b } = setup();
    const lease = await take(a);
    await a.release(lease);
    expect((await take(b)).token).toBe(2);
  });

  it('keeps a tombstone of a deleted leased record, so tokens are never handed out twice', async () => {
    const { clock, store, a, b } = setup();
    await a.apply('k', counter, add, 1);
    const lease = await take(a);
    const gone = await a.apply('k', counter, add, null, { lease });
    expect(gone.ok && gone.committed).toBeUndefined();
    expect(await a.read('k', counter)).toBeUndefined();
    clock.advance(1_000);
    expect((await take(b)).token).toBe(2);
    expect((await store.getEntry('k'))?.expiresAt).toBe(3_000 + 10_000);
  });

  it('refuses the same owner a second lease while its first is valid; force takes it and fences the first', async () => {
    const { a, b } = setup();
    const first = await take(a);
    const again = await a.acquire('k', counter, { ttlMs: 1_000 });
    expect(!again.ok && again.code).toBe('lease_held');
    const forced = await b.acquire('k', counter, { ttlMs: 1_000, force: true });
    expect(forced.ok && forced.lease.token).toBe(first.token + 1);
    const stale = await a.apply('k', counter, add, 1, { lease: first });
    expect(!stale.ok && stale.code).toBe('lease_lost');
  });

  it('ends the lease in the commit with release: true', async () => {
    const { a, b } = setup();
    const lease = await take(a);
    const done = await a.apply('k', counter, add, 1, { lease, release: true });
    expect(done.ok && done.committed?.lease).toBeNull();
    expect((await b.apply('k', counter, add, 1)).ok).toBe(true);
  });

  it('refuses a lease of another key, and a ttlMs that is not positive', async () => {
    const { a } = setup();
    const lease = await take(a, 'x');
    const other = await a.apply('k', counter, add, 1, { lease });
    expect(!other.ok && other.code).toBe('lease_lost');
    await expect(a.acquire('k', counter, { ttlMs: 0 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(a.renew(lease, { ttlMs: Number.NaN })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('reports store_failed from acquire and renew, and swallows it on release', async () => {
    const { store, a } = setup();
    const lease = await take(a);
    store.failWrites = 3;
    const got = await a.acquire('y', counter, { ttlMs: 10 });
    expect(!got.ok && got.code).toBe('store_failed');
    const renewed = await a.renew(lease, { ttlMs: 10 });
    expect(!renewed.ok && renewed.code).toBe('store_failed');
    await expect(a.release(lease)).resolves.toBeUndefined();
  });
});
