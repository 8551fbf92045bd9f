// The memory store's expiry at the exact ms on the injected clock, through rewrites and refused writes.
import { describe, expect, it } from 'vitest';
import { createManualClock, createMemoryStore, type StoreChange } from '../src/index.js';

function world() {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  const changes: string[] = [];
  store.watch?.('', (change: StoreChange) => changes.push(`${change.kind} ${change.key}`));
  return { clock, store, changes };
}

describe('the memory store expiry', () => {
  it('keeps the expiry of a key whose rewrite was refused', async () => {
    const { clock, store } = world();
    await store.set('k', 1, { ttlMs: 100 });
    await expect(store.set('k', { at: new Date() } as never)).rejects.toMatchObject({
      code: 'json_not_serializable',
    });
    await expect(store.set('k', 2, { ttlMs: -1 })).rejects.toMatchObject({ code: 'invalid_timeout' });
    await expect(store.compareAndSet('k', 1, Number.NaN)).rejects.toMatchObject({
      code: 'json_not_serializable',
    });
    clock.advance(99);
    expect(await store.get('k')).toBe(1);
    clock.advance(1);
    expect(await store.get('k')).toBeUndefined();
  });

  it('moves the expiry of a rewritten key to the new ttl, at the exact ms', async () => {
    const { clock, store, changes } = world();
    await store.set('a', 1, { ttlMs: 100 });
    await store.set('b', 1, { ttlMs: 150 });
    clock.advance(50);
    const v = await store.set('a', 2, { ttlMs: 200 }); // now due at 1_250, after b
    expect(await store.getEntry('a')).toEqual({ key: 'a', value: 2, version: v, expiresAt: 1_250 });
    clock.advance(99);
    expect([await store.get('a'), await store.get('b')]).toEqual([2, 1]);
    clock.advance(1); // 1_150: b is due
    expect([await store.get('a'), await store.get('b')]).toEqual([2, undefined]);
    clock.advance(99);
    expect(await store.get('a')).toBe(2);
    clock.advance(1);
    expect(await store.compareAndSet('a', v, 3)).toEqual({ ok: false, version: null });
    expect(changes).toEqual(['set a', 'set b', 'set a', 'expire b', 'expire a']);
  });

  it('expires many keys in the order they are due, each reported once', async () => {
    const { clock, store, changes } = world();
    const due = [7, 3, 9, 3, 1, 5, 8, 2];
    for (const [i, ms] of due.entries()) await store.set(`k${i}`, i, { ttlMs: ms });
    for (const [i, ms] of due.entries()) if (i % 2 === 0) await store.set(`k${i}`, -i, { ttlMs: ms + 10 });
    changes.length = 0;
    clock.advance(20);
    await store.get('none');
    // due at 17, 3, 19, 3, 11, 5, 18, 2; a tie goes to the earlier write
    const expected = ['k7', 'k1', 'k3', 'k5', 'k4', 'k0', 'k6', 'k2'].map((key) => `expire ${key}`);
    expect(changes).toEqual(expected);
  });

  it('keeps a key rewritten without a ttl after its old expiry passed', async () => {
    const { clock, store } = world();
    await store.set('k', 1, { ttlMs: 10 });
    await store.compareAndSet('k', 1, 2);
    clock.advance(10);
    expect(await store.get('k')).toBe(2);
    expect(await store.getEntry('k')).toMatchObject({ expiresAt: undefined });
  });
});
