import { describe, expect, it } from 'vitest';
import { runCli } from '../src/internal/cli-run.js';
import { publicKeyOf } from '../src/index.js';
import { appendAll, confirmedRun, PRIVATE_KEY, setup } from './helpers.js';

async function exported(): Promise<string> {
  const { ledger } = setup({ signing: { keyId: 'prod', privateKey: PRIVATE_KEY } });
  await appendAll(ledger, 's1', confirmedRun());
  return ledger.exportLines('s1');
}

function run(args: string[], files: Record<string, string>): { code: number; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runCli(args, {
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error('ENOENT');
      return text;
    },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
}

describe('parley-ledger verify', () => {
  it('exits 0 for an untouched file, with or without the public key and kept head', async () => {
    const text = await exported();
    expect(run(['verify', 'a.jsonl'], { 'a.jsonl': text })).toMatchObject({
      code: 0,
      out: [expect.stringMatching(/^ok: 6 entries, head 5 /)],
    });
    const head = `5:${(JSON.parse(text.trim().split('\n')[5] as string) as { hash: string }).hash}`;
    const args = ['verify', 'a.jsonl', '--key', `prod=${publicKeyOf(PRIVATE_KEY)}`, '--head', head];
    expect(run(args, { 'a.jsonl': text }).code).toBe(0);
    expect(run(['verify', 'e.jsonl'], { 'e.jsonl': '' }).out).toEqual(['ok: 0 entries']);
  });

  it('verifies a pruned chain from its anchor (--anchor), and not without it', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 's1', confirmedRun());
    const pruned = await ledger.prune('s1', { before: 2 });
    const anchor =
      pruned.ok && pruned.anchor !== undefined ? `${pruned.anchor.seq}:${pruned.anchor.hash}` : '';
    const files = { 'rest.jsonl': await ledger.exportLines('s1') };
    expect(run(['verify', 'rest.jsonl', '--anchor', anchor], files)).toMatchObject({
      code: 0,
      out: [expect.stringMatching(/^ok: 4 entries, head 5 /)],
    });
    expect(run(['verify', 'rest.jsonl'], files).code).toBe(1);
    expect(run(['verify', 'rest.jsonl', '--anchor', 'x:1'], files).code).toBe(2);
  });

  it('exits 1 for a tampered copy and names the first bad entry', async () => {
    const text = (await exported()).replace('"confirmed"', '"cancelled"');
    expect(run(['verify', 'a.jsonl'], { 'a.jsonl': text })).toMatchObject({
      code: 1,
      out: ['edited at line 4 (entry 3): entry 3 does not match its hash'],
    });
    expect(run(['verify', 'b.jsonl'], { 'b.jsonl': 'nope\n' })).toMatchObject({
      code: 1,
      out: [expect.stringMatching(/^corrupt at line 1: /)],
    });
  });

  it('exits 2 on bad usage or an unreadable file', () => {
    for (const args of [
      [],
      ['check', 'a'],
      ['verify'],
      ['verify', 'a', '--key'],
      ['verify', 'a', '--key', 'prod=zz'],
      ['verify', 'a', '--head', 'x:1'],
    ]) {
      expect(run(args, {})).toMatchObject({ code: 2, err: [expect.stringMatching(/^usage: /)] });
    }
    expect(run(['verify', 'missing.jsonl'], {})).toMatchObject({
      code: 2,
      err: ['cannot read missing.jsonl: ENOENT'],
    });
  });
});
