import { describe, expect, it } from 'vitest';
import { type LedgerEntry, verifyLedger } from '../src/index.js';
import { hashEntry } from '../src/entry.js';
import { appendAll, confirmedRun, linesOf, setup } from './helpers.js';

async function chain(): Promise<string[]> {
  const { ledger } = setup();
  await appendAll(ledger, 's1', confirmedRun());
  return linesOf(ledger, 's1');
}

const parse = (line: string | undefined): LedgerEntry => JSON.parse(line as string) as LedgerEntry;
/** An entry rewritten with its hash recomputed (what a careful forger does). */
const rehash = (entry: Omit<LedgerEntry, 'hash'>): string =>
  JSON.stringify({ ...entry, hash: hashEntry(entry) });

describe('verifyLedger', () => {
  it('accepts an untouched export, as text or as lines, and reports its head', async () => {
    const lines = await chain();
    const result = verifyLedger(lines);
    expect(result).toEqual({ ok: true, entries: 6, head: { seq: 5, hash: parse(lines[5]).hash } });
    expect(verifyLedger(`${lines.join('\n')}\n`)).toEqual(result);
    expect(verifyLedger(lines, { head: { seq: 5, hash: parse(lines[5]).hash } }).ok).toBe(true);
    expect(verifyLedger('')).toEqual({ ok: true, entries: 0, head: undefined });
  });

  it('names an entry edited in place (edited: its hash no longer matches)', async () => {
    const lines = await chain();
    lines[3] = (lines[3] as string).replace('"confirmed"', '"cancelled"');
    expect(verifyLedger(lines)).toMatchObject({ ok: false, code: 'edited', line: 4, seq: 3 });
  });

  it('names an entry rewritten with a recomputed hash (edited: its successor committed to the old one)', async () => {
    const lines = await chain();
    const entry = parse(lines[2]);
    lines[2] = rehash({ ...entry, body: { ...entry.body, authorId: 'mallory' } as LedgerEntry['body'] });
    expect(verifyLedger(lines)).toMatchObject({ ok: false, code: 'edited', line: 3, seq: 2 });
    const first = parse(lines[0]);
    const fresh = await chain();
    fresh[0] = rehash({ ...first, prev: 'ff'.repeat(32) });
    expect(verifyLedger(fresh)).toMatchObject({ ok: false, code: 'edited', line: 1, seq: 0 });
  });

  it('names a deleted entry, at the start, in the middle, and at the end against a kept head', async () => {
    const lines = await chain();
    expect(verifyLedger([...lines.slice(0, 2), ...lines.slice(3)])).toMatchObject({
      ok: false,
      code: 'deleted',
      line: 3,
      seq: 3,
    });
    expect(verifyLedger(lines.slice(1))).toMatchObject({ ok: false, code: 'deleted', line: 1, seq: 1 });
    const head = { seq: 5, hash: parse(lines[5]).hash };
    expect(verifyLedger(lines.slice(0, 5)).ok).toBe(true); // a cut end is invisible without a head
    expect(verifyLedger(lines.slice(0, 5), { head })).toMatchObject({
      ok: false,
      code: 'deleted',
      line: 6,
      seq: 5,
    });
    expect(verifyLedger([], { head })).toMatchObject({ ok: false, code: 'deleted', line: 1, seq: 0 });
  });

  it('names reordered entries', async () => {
    const lines = await chain();
    const swapped = [lines[0], lines[2], lines[1], ...lines.slice(3)] as string[];
    expect(verifyLedger(swapped)).toMatchObject({ ok: false, code: 'reordered', line: 2, seq: 2 });
  });

  it('names an inserted entry: a foreign line, a duplicated line, another session', async () => {
    const lines = await chain();
    const forged = rehash({ ...parse(lines[2]), prev: 'ee'.repeat(32) });
    expect(verifyLedger([...lines.slice(0, 2), forged, ...lines.slice(2)])).toMatchObject({
      ok: false,
      code: 'inserted',
      line: 3,
      seq: 2,
    });
    expect(verifyLedger([...lines.slice(0, 3), lines[2] as string, ...lines.slice(3)])).toMatchObject({
      ok: false,
      code: 'inserted',
      line: 4,
      seq: 2,
    });
    const { ledger } = setup();
    await appendAll(ledger, 's2', confirmedRun());
    const other = await linesOf(ledger, 's2');
    expect(verifyLedger([...lines.slice(0, 3), other[3] as string])).toMatchObject({
      ok: false,
      code: 'inserted',
      line: 4,
    });
    const late = rehash({ ...parse(lines[1]), prev: 'dd'.repeat(32) });
    expect(verifyLedger([...lines, late])).toMatchObject({ ok: false, code: 'inserted', line: 7, seq: 1 });
    expect(verifyLedger(lines.slice(0, 4), { head: { seq: 2, hash: parse(lines[2]).hash } })).toMatchObject({
      ok: false,
      code: 'inserted',
      seq: 3,
    });
  });

  it('names a fork: two different entries after the same one', async () => {
    const lines = await chain();
    const twin = rehash({ ...parse(lines[4]), at: parse(lines[4]).at + 1 });
    expect(verifyLedger([...lines.slice(0, 5), twin])).toMatchObject({
      ok: false,
      code: 'forked',
      line: 6,
      seq: 4,
    });
  });

  it('names a chain that ends elsewhere than the head given (edited)', async () => {
    const lines = await chain();
    expect(verifyLedger(lines, { head: { seq: 5, hash: '00'.repeat(32) } })).toMatchObject({
      ok: false,
      code: 'edited',
      line: 6,
    });
  });

  it('refuses a corrupt line and an entry of another version, naming the line', async () => {
    const lines = await chain();
    expect(verifyLedger([lines[0] as string, '{not json'])).toMatchObject({
      ok: false,
      code: 'corrupt',
      line: 2,
    });
    expect(verifyLedger([lines[0] as string, '[1]'])).toMatchObject({ ok: false, code: 'corrupt', line: 2 });
    expect(verifyLedger([JSON.stringify({ ...parse(lines[0]), v: 2 })])).toMatchObject({
      ok: false,
      code: 'version',
      line: 1,
    });
    const broken = [
      { session: '' },
      { seq: -1 },
      { at: 'now' },
      { prev: 'xy' },
      { keyId: '' },
      { sig: 'ab' },
      { body: null },
      { body: { kind: 'nope' } },
      { body: { kind: 'effect', confirmationId: 'c1' } },
      { body: { kind: 'prompt_delivered', confirmationId: 'c1', step: 1 } },
    ];
    for (const patch of broken) {
      expect(verifyLedger([JSON.stringify({ ...parse(lines[0]), ...patch })])).toMatchObject({
        ok: false,
        code: 'corrupt',
        line: 1,
      });
    }
  });

  it('verifies a suffix after pruning from a kept anchor', async () => {
    const lines = await chain();
    const anchor = { seq: 2, hash: parse(lines[2]).hash };
    expect(verifyLedger(lines.slice(3), { anchor })).toMatchObject({
      ok: true,
      entries: 3,
      head: { seq: 5 },
    });
    expect(verifyLedger(lines.slice(4), { anchor })).toMatchObject({ ok: false, code: 'deleted', seq: 4 });
    expect(verifyLedger([], { anchor })).toEqual({
      ok: true,
      entries: 0,
      head: { seq: 2, hash: anchor.hash },
    });
  });
});
