import type { JsonValue } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { readStoredChain, verifyLedger } from '../src/index.js';
import { confirmedRun, setup } from './helpers.js';

describe('readStoredChain', () => {
  it('reads a tampered chain that Ledger.entries refuses, so verifyLedger names the bad entry', async () => {
    const { store, ledger } = setup();
    for (const input of confirmedRun()) await ledger.append('chat-1', input);
    const stored = (await store.get('parley:ledger:chat-1')) as {
      data: { entries: { body: { text?: string } }[] };
    };
    const answer = stored.data.entries[2];
    if (answer === undefined) throw new Error('the chain holds no answer entry');
    answer.body.text = '取消';
    await store.set('parley:ledger:chat-1', stored as unknown as JsonValue);
    await expect(ledger.entries('chat-1')).rejects.toMatchObject({ code: 'corrupt_record' });
    const chain = readStoredChain(await store.get('parley:ledger:chat-1'));
    expect(chain?.session).toBe('chat-1');
    expect(chain?.lines).toHaveLength(6);
    expect(verifyLedger(chain?.lines ?? [])).toMatchObject({ ok: false, code: 'edited', line: 3, seq: 2 });
  });

  it('keeps the anchor of a pruned chain, which verification needs', async () => {
    const { store, ledger } = setup();
    for (const input of confirmedRun()) await ledger.append('chat-1', input);
    const pruned = await ledger.prune('chat-1', { before: 2 });
    const chain = readStoredChain(await store.get('parley:ledger:chat-1'));
    expect(pruned.ok && chain?.anchor).toEqual(pruned.ok && pruned.anchor);
    expect(verifyLedger(chain?.lines ?? [], { anchor: chain?.anchor }).ok).toBe(true);
  });

  it('answers undefined for anything that is not a chain record of this format', () => {
    const chain = { session: 's', entries: [] };
    expect(readStoredChain(undefined)).toBeUndefined();
    expect(readStoredChain([1])).toBeUndefined();
    expect(readStoredChain({ kind: 'parley.kernel.claim', version: 1, data: chain })).toBeUndefined();
    expect(readStoredChain({ kind: 'parley.ledger.chain', version: 2, data: chain })).toBeUndefined();
    expect(readStoredChain({ kind: 'parley.ledger.chain', version: 1, data: null })).toBeUndefined();
    expect(
      readStoredChain({ kind: 'parley.ledger.chain', version: 1, data: { session: 1, entries: [] } }),
    ).toBeUndefined();
    expect(
      readStoredChain({ kind: 'parley.ledger.chain', version: 1, data: { session: 's', entries: {} } }),
    ).toBeUndefined();
  });

  it('ignores a malformed anchor and turns every stored entry into one line', () => {
    const value = {
      kind: 'parley.ledger.chain',
      version: 1,
      data: { session: 's', entries: [1, 'x'], anchor: { seq: 'a' } },
    };
    expect(readStoredChain(value)).toEqual({ session: 's', lines: ['1', '"x"'], anchor: undefined });
  });
});
