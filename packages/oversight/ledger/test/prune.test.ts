import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createLedger, verifyLedger } from '../src/index.js';
import { appendAll, confirmedRun, DIGEST, linesOf, setup } from './helpers.js';

describe('Ledger.prune', () => {
  it('keeps the rest verifiable from the returned anchor, and later appends link to it', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 's1', confirmedRun('c1'));
    const before = await ledger.entries('s1');
    const pruned = await ledger.prune('s1', { before: 4 });
    expect(pruned).toEqual({ ok: true, removed: 4, anchor: { seq: 3, hash: before[3]?.hash } });
    const anchor = pruned.ok ? pruned.anchor : undefined;
    expect((await ledger.entries('s1')).map((e) => e.seq)).toEqual([4, 5]);
    // without the anchor a verifier sees a chain that does not start at seq 0
    expect(verifyLedger(await linesOf(ledger, 's1')).ok).toBe(false);
    expect(verifyLedger(await linesOf(ledger, 's1'), { anchor })).toMatchObject({ ok: true, entries: 2 });
    await appendAll(ledger, 's1', confirmedRun('c2'));
    const lines = await linesOf(ledger, 's1');
    expect(verifyLedger(lines, { anchor })).toMatchObject({ ok: true, entries: 8, head: { seq: 11 } });
  });

  it('forgets the pruned facts: an authorization whose decision was pruned is refused (no_consent)', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 's1', confirmedRun('c1').slice(0, 4));
    expect((await ledger.prune('s1', { before: 4 })).ok).toBe(true);
    expect(
      await ledger.append('s1', { kind: 'authorization', confirmationId: 'c1', actionDigest: DIGEST }),
    ).toMatchObject({
      ok: false,
      code: 'no_consent',
    });
  });

  it('removes nothing from an empty chain, before its first kept entry, or twice', async () => {
    const { ledger } = setup();
    expect(await ledger.prune('s1', { before: 3 })).toEqual({ ok: true, removed: 0, anchor: undefined });
    await appendAll(ledger, 's1', confirmedRun('c1'));
    const first = await ledger.prune('s1', { before: 2 });
    expect(await ledger.prune('s1', { before: 2 })).toEqual({ ...first, removed: 0 });
    expect(await ledger.prune('s1', { before: 99 })).toMatchObject({
      ok: true,
      removed: 4,
      anchor: { seq: 5 },
    });
    expect(await ledger.entries('s1')).toEqual([]);
    await appendAll(ledger, 's1', confirmedRun('c2').slice(0, 1));
    expect((await ledger.entries('s1'))[0]?.seq).toBe(6);
  });

  it('removes nothing when the store write fails (store_failed), and the chain stays whole', async () => {
    const { clock } = setup();
    const store = createFakeStore({ clock });
    const ledger = createLedger({ store, clock });
    await appendAll(ledger, 's1', confirmedRun('c1'));
    store.fail(['compareAndSet', 'set'], { times: 100 });
    expect(await ledger.prune('s1', { before: 4 })).toMatchObject({ ok: false, code: 'store_failed' });
    store.heal();
    expect(verifyLedger(await linesOf(ledger, 's1'))).toMatchObject({ ok: true, entries: 6 });
  });

  it('never forks a chain when a replica appends while another prunes', async () => {
    const { clock, store } = setup();
    const a = createLedger({ store, clock, owner: 'a' });
    const b = createLedger({ store, clock, owner: 'b' });
    await appendAll(a, 's1', confirmedRun('c1').slice(0, 4));
    const [pruned, appended] = await Promise.all([
      a.prune('s1', { before: 2 }),
      b.append('s1', { kind: 'authorization', confirmationId: 'c1', actionDigest: DIGEST }),
    ]);
    expect(pruned.ok && appended.ok).toBe(true);
    const anchor = pruned.ok ? pruned.anchor : undefined;
    expect(verifyLedger(await linesOf(b, 's1'), { anchor })).toMatchObject({ ok: true, entries: 3 });
  });

  it('refuses a bad session key or seq (invalid_argument)', async () => {
    const { ledger } = setup();
    expect(await ledger.prune('', { before: 1 })).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(await ledger.prune('s1', { before: -1 })).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(await ledger.prune('s1', { before: 1.5 })).toMatchObject({ ok: false, code: 'invalid_argument' });
  });
});
