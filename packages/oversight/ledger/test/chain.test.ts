import { createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createLedger, GENESIS_HASH, matchesRedacted, publicKeyOf, verifyLedger } from '../src/index.js';
import { appendAll, confirmedRun, DIGEST, linesOf, PRIVATE_KEY, setup } from './helpers.js';

describe('appending', () => {
  it('links each entry to the one before it, numbered from 0, stamped with the clock', async () => {
    const { ledger, clock } = setup();
    await appendAll(ledger, 's1', confirmedRun().slice(0, 2));
    clock.advance(5);
    await appendAll(ledger, 's1', confirmedRun().slice(2, 3));
    const entries = await ledger.entries('s1');
    expect(entries.map((e) => [e.seq, e.body.kind, e.at - 1_700_000_000_000])).toEqual([
      [0, 'request', 0],
      [1, 'prompt_delivered', 0],
      [2, 'answer', 5],
    ]);
    expect(entries[0]?.prev).toBe(GENESIS_HASH);
    expect(entries[1]?.prev).toBe(entries[0]?.hash);
    expect(entries[2]?.prev).toBe(entries[1]?.hash);
  });

  it('keeps one chain per session', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 'a', confirmedRun('x'));
    await appendAll(ledger, 'b', confirmedRun('y').slice(0, 1));
    expect((await ledger.entries('a')).length).toBe(6);
    expect((await ledger.entries('b')).map((e) => e.seq)).toEqual([0]);
    expect(await ledger.entries('none')).toEqual([]);
  });

  it('absorbs the same fact appended twice (a redelivered event) as the entry already there', async () => {
    const { ledger } = setup();
    const [request, prompt] = confirmedRun();
    await appendAll(ledger, 's1', [request as never, prompt as never]);
    const again = await ledger.append('s1', prompt as never);
    expect(again.ok && again.duplicate && again.entry.seq).toBe(1);
    expect((await ledger.entries('s1')).length).toBe(2);
  });

  it('refuses the same fact with other content (entry_conflict), writing nothing', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 's1', confirmedRun().slice(0, 4));
    const other = await ledger.append('s1', {
      kind: 'decision',
      confirmationId: 'c1',
      actionDigest: DIGEST,
      outcome: 'cancelled',
      reason: 'reply',
    });
    expect(other).toMatchObject({ ok: false, code: 'entry_conflict' });
    expect((await ledger.entries('s1')).length).toBe(4);
  });

  it('fails closed: no authorization without a confirmed decision for the same action, no effect without an authorization', async () => {
    const { ledger } = setup();
    const facts = confirmedRun();
    expect(await ledger.append('s1', facts[5] as never)).toMatchObject({ ok: false, code: 'no_consent' });
    expect(await ledger.append('s1', facts[4] as never)).toMatchObject({ ok: false, code: 'no_consent' });
    await ledger.append('s1', {
      kind: 'decision',
      confirmationId: 'c1',
      actionDigest: DIGEST,
      outcome: 'cancelled',
      reason: 'reply',
    });
    expect(await ledger.append('s1', facts[4] as never)).toMatchObject({ ok: false, code: 'no_consent' });
    await ledger.append('s1', {
      kind: 'decision',
      confirmationId: 'c2',
      actionDigest: DIGEST,
      outcome: 'confirmed',
      reason: 'reply',
    });
    const otherAction = await ledger.append('s1', {
      kind: 'authorization',
      confirmationId: 'c2',
      actionDigest: 'cd'.repeat(32),
    });
    expect(otherAction).toMatchObject({ ok: false, code: 'no_consent' });
    expect((await ledger.entries('s1')).map((e) => e.body.kind)).toEqual(['decision', 'decision']);
  });

  it('refuses past maxEntries (chain_full) and an entry past maxEntryBytes (entry_too_large)', async () => {
    const { ledger } = setup({ maxEntries: 2 });
    await appendAll(ledger, 's1', confirmedRun().slice(1, 3));
    expect(await ledger.append('s1', confirmedRun()[3] as never)).toMatchObject({
      ok: false,
      code: 'chain_full',
    });
    const long = await ledger.append('s2', {
      kind: 'effect',
      confirmationId: 'c1',
      outcome: 'failed',
      detail: 'x'.repeat(600),
    });
    expect(long).toMatchObject({ ok: false, code: 'no_consent' });
    const wide = setup({ maxEntryBytes: 600 }).ledger;
    await appendAll(wide, 's3', confirmedRun().slice(3, 5));
    const big = await wide.append('s3', {
      kind: 'effect',
      confirmationId: 'c1',
      outcome: 'failed',
      detail: '界'.repeat(200),
    });
    expect(big).toMatchObject({ ok: false, code: 'entry_too_large' });
  });

  it('refuses a bad session key as data and rejects bad options', async () => {
    const { ledger } = setup();
    expect(await ledger.append('', confirmedRun()[0] as never)).toMatchObject({
      ok: false,
      code: 'invalid_argument',
    });
    await expect(ledger.entries('x'.repeat(257))).rejects.toSatisfy((e) =>
      isParleyError(e, 'invalid_argument'),
    );
    const store = createMemoryStore();
    for (const bad of [
      { maxEntries: 0 },
      { maxEntryBytes: 1.5 },
      { retentionMs: -1 },
      { redact: { salt: 'short' } },
      { signing: { keyId: '', privateKey: PRIVATE_KEY } },
      { signing: { keyId: 'k', privateKey: 'zz' } },
    ]) {
      expect(() => createLedger({ store, ...bad })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });

  it('keeps a chain until retentionMs after its last append', async () => {
    const { ledger, clock } = setup({ retentionMs: 1000 });
    await appendAll(ledger, 's1', confirmedRun().slice(0, 1));
    clock.advance(999);
    expect((await ledger.entries('s1')).length).toBe(1);
    clock.advance(2);
    expect(await ledger.entries('s1')).toEqual([]);
  });
});

describe('redaction and signatures', () => {
  it('stores summaries and answer texts as salted digests and still verifies', async () => {
    const salt = 'deployment-salt-0123';
    const { ledger } = setup({ redact: { salt } });
    await appendAll(ledger, 's1', confirmedRun());
    const entries = await ledger.entries('s1');
    const text = await ledger.exportLines('s1');
    expect(text).not.toContain('DELETE FROM orders');
    expect(text).not.toContain('确认');
    const request = entries[0]?.body;
    expect(
      request?.kind === 'request' &&
        typeof request.summary === 'object' &&
        matchesRedacted('DELETE FROM orders', salt, request.summary),
    ).toBe(true);
    expect(verifyLedger(text).ok).toBe(true);
  });

  it('signs every entry with the deployment key; the public key alone verifies it', async () => {
    const { ledger } = setup({ signing: { keyId: 'prod', privateKey: PRIVATE_KEY } });
    await appendAll(ledger, 's1', confirmedRun());
    const lines = await linesOf(ledger, 's1');
    expect(verifyLedger(lines, { publicKeys: { prod: publicKeyOf(PRIVATE_KEY) } })).toMatchObject({
      ok: true,
      entries: 6,
    });
    expect(verifyLedger(lines, { publicKeys: { prod: publicKeyOf('2e'.repeat(32)) } })).toMatchObject({
      ok: false,
      code: 'signature',
      line: 1,
    });
    expect(verifyLedger(lines, { publicKeys: { other: publicKeyOf(PRIVATE_KEY) } })).toMatchObject({
      ok: false,
      code: 'signature',
    });
    expect(verifyLedger(lines, { publicKeys: { prod: 'not-hex' } })).toMatchObject({
      ok: false,
      code: 'signature',
    });
  });

  it('refuses an unsigned chain when keys are required', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 's1', confirmedRun().slice(0, 1));
    expect(
      verifyLedger(await linesOf(ledger, 's1'), { publicKeys: { prod: publicKeyOf(PRIVATE_KEY) } }),
    ).toMatchObject({ ok: false, code: 'signature', seq: 0 });
  });
});
