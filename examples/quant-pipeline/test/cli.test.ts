// The command lines the README shows, through `npm run example` (scripts/example.mjs), on the built
// packages: a flag's value (`--scenario blocked`, `--platform discord`) reaches the example.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;

it('runs one scenario on Discord: npm run example quant-pipeline -- --scenario blocked --platform discord', () => {
  const args = ['scripts/example.mjs', 'quant-pipeline', '--scenario', 'blocked', '--platform', 'discord'];
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 240_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('scenario "blocked"');
  expect(run.stdout).not.toContain('scenario "happy"');
  expect(run.stdout).toContain(
    'discord #approvals: <@300000000000000777> review of Strategy_Thesis.json: blocked',
  );
}, 240_000);
