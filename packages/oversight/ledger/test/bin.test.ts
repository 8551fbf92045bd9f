import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendAll, confirmedRun, setup } from './helpers.js';

describe('the parley-ledger bin', () => {
  const argv = process.argv;
  afterEach(() => {
    process.argv = argv;
    process.exitCode = undefined;
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('verifies a file from the command line and sets the exit code', async () => {
    const { ledger } = setup();
    await appendAll(ledger, 's1', confirmedRun());
    const dir = mkdtempSync(join(tmpdir(), 'ledger-bin-'));
    const file = join(dir, 'chain.jsonl');
    writeFileSync(file, (await ledger.exportLines('s1')).replace('"succeeded"', '"failed"'));
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    process.argv = ['node', 'parley-ledger', 'verify', file];
    await import('../src/cli.js');
    expect(process.exitCode).toBe(1);
    expect(String(out.mock.calls[0]?.[0])).toMatch(/^edited at line 6 \(entry 5\)/);
    rmSync(dir, { recursive: true, force: true });
  });
});
