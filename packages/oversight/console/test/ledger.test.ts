import type { JsonValue } from '@parley/core';
import { createLedger, type LedgerInput } from '@parley/ledger';
import { describe, expect, it } from 'vitest';
import { memory, serve } from './helpers.js';

const DIGEST = 'ab'.repeat(32);
const RUN: LedgerInput[] = [
  {
    kind: 'request',
    ref: 'r1',
    actionName: 'sql.delete',
    actionDigest: DIGEST,
    summary: 'Delete the orders',
    requester: 'alice',
    approvers: 'requester',
  },
  { kind: 'answer', confirmationId: 'c1', authorId: 'alice', via: 'reply', text: '确认' },
  {
    kind: 'decision',
    confirmationId: 'c1',
    actionDigest: DIGEST,
    outcome: 'confirmed',
    reason: 'reply',
    decidedBy: 'alice',
  },
  { kind: 'authorization', confirmationId: 'c1', actionDigest: DIGEST },
  { kind: 'effect', confirmationId: 'c1', outcome: 'succeeded', detail: 'rows=3 token=tool-secret' },
];

interface Chains {
  items: { session: string; entries: number; verification: { ok: boolean; code?: string; line?: number } }[];
}

async function chains() {
  const { clock, store } = memory();
  const ledger = createLedger({ store, clock });
  for (const session of ['feishu:g1', 'feishu:g2'])
    for (const input of RUN) await ledger.append(session, input);
  return { clock, store };
}

describe('/ledger and /ledger/<session>', () => {
  it('shows each session’s chain as verified', async () => {
    const { clock, store } = await chains();
    const { json, get } = await serve({ store, clock });
    expect((await json<Chains>('/ledger')).items).toEqual([
      {
        session: 'feishu:g1',
        sessionKey: 'feishu:g1',
        entries: 5,
        verification: { ok: true, entries: 5, headSeq: 4 },
      },
      {
        session: 'feishu:g2',
        sessionKey: 'feishu:g2',
        entries: 5,
        verification: { ok: true, entries: 5, headSeq: 4 },
      },
    ]);
    const html = (await get('/ledger')).text;
    expect(html).toContain('href="/ledger/feishu%3Ag1"');
    expect(html).toContain('verified: 5 entries intact');
    const detail = (await get('/ledger/feishu%3Ag1')).text;
    expect(detail).toContain('Delete the orders');
    expect(detail).not.toContain('tool-secret');
  });

  it('shows a tampered chain red, naming the first bad entry and marking its row', async () => {
    const { clock, store } = await chains();
    const stored = (await store.get('parley:ledger:feishu:g2')) as {
      data: { entries: { body: { text?: string } }[] };
    };
    const answer = stored.data.entries[1];
    if (answer === undefined) throw new Error('no answer entry to tamper with');
    answer.body.text = '取消';
    await store.set('parley:ledger:feishu:g2', stored as unknown as JsonValue);
    const { json, get } = await serve({ store, clock });
    const list = await json<Chains>('/ledger');
    expect(list.items[1]?.verification).toMatchObject({ ok: false, code: 'edited', line: 2, seq: 1 });
    expect((await get('/ledger')).text).toContain(
      '<span class="tampered"><bdi>TAMPERED (edited) at line 2, seq 1',
    );
    const detail = await json<{ entries: { line: number; bad: boolean }[] }>('/ledger/feishu%3Ag2');
    expect(detail.entries.filter((e) => e.bad).map((e) => e.line)).toEqual([2]);
    expect((await get('/ledger/feishu%3Ag2')).text).toContain('<tr class="bad">');
  });

  it('shows an effect’s detail only with reveal.outputs', async () => {
    const { clock, store } = await chains();
    const { get } = await serve({ store, clock, reveal: { outputs: true } });
    expect((await get('/ledger/feishu%3Ag1')).text).toContain('tool-secret');
  });

  it('pages a chain’s entries, and refuses a record that is not a chain', async () => {
    const { clock, store } = await chains();
    await store.set('parley:ledger:junk', { not: 'a chain' });
    const { json, get } = await serve({ store, clock, pageSize: 2 });
    const first = await json<{ entries: { line: number }[]; next?: string }>('/ledger/feishu%3Ag1');
    expect(first.entries.map((e) => e.line)).toEqual([1, 2]);
    const last = await json<{ entries: { line: number }[]; next?: string }>('/ledger/feishu%3Ag1?after=4');
    expect(last.entries.map((e) => e.line)).toEqual([5]);
    expect(last.next).toBeUndefined();
    expect((await get('/ledger/junk')).status).toBe(500);
    const list = await serve({ store, clock });
    expect(await list.json('/ledger')).toMatchObject({ refused: [{ key: 'parley:ledger:junk' }] });
  });

  it('shows a redacted text as its digest, and an entry that is not JSON as unreadable', async () => {
    const { clock, store } = memory();
    const ledger = createLedger({ store, clock, redact: { salt: 'a-salt-of-16-chars' } });
    for (const input of RUN) await ledger.append('s1', input);
    const stored = (await store.get('parley:ledger:s1')) as { data: { entries: JsonValue[] } };
    stored.data.entries[4] = 42;
    await store.set('parley:ledger:s1', stored as unknown as JsonValue);
    const { json, get } = await serve({ store, clock });
    const detail = await json<{
      verification: Record<string, unknown>;
      entries: { kind: string; detail: string }[];
    }>('/ledger/s1');
    expect(detail.verification).toMatchObject({ ok: false, code: 'corrupt', line: 5 });
    expect(detail.verification.seq).toBeUndefined();
    expect(detail.entries[0]?.detail).toContain('summary: {"redacted":"sha256:');
    expect(detail.entries[4]).toMatchObject({ kind: 'unreadable', detail: '' });
    expect((await get('/ledger/s1')).text).toContain('TAMPERED (corrupt) at line 5:');
  });

  it('verifies signatures when given the deployment’s public keys', async () => {
    const { clock, store } = await chains();
    const { json } = await serve({ store, clock, ledger: { publicKeys: { prod: 'cd'.repeat(32) } } });
    expect((await json<Chains>('/ledger')).items[0]?.verification).toMatchObject({
      ok: false,
      code: 'signature',
      line: 1,
    });
  });
});
