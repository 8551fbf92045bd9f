// Proves the packages work for someone who installs them from npm: each built package is packed
// with `npm pack`, the tarballs are installed into a fresh project outside the workspace, and
// every package is imported from ESM and from CJS. `npm test` builds before running this.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { listPackages } from '../../scripts/packages.mjs';

interface Pkg {
  name: string;
  dir: string;
}

const packages = (listPackages() as Pkg[]).filter((p) => existsSync(join(p.dir, 'dist', 'index.js')));
const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let project = '';

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'parley-consumer-'));
  const tarballs = join(project, 'tarballs');
  mkdirSync(tarballs);
  for (const pkg of packages) run('npm', ['pack', '--silent', '--pack-destination', tarballs], pkg.dir);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
  );
  const files = readdirSync(tarballs).map((f) => join(tarballs, f));
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', ...files],
    project,
  );
}, 300_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('installed from packed tarballs', () => {
  it('has at least @parley/core built', () => {
    expect(packages.map((p) => p.name)).toContain('@parley/core');
  });

  it.each(packages.map((p) => [p.name]))('%s imports from ESM and CJS with the same exports', (name) => {
    const esm = run(
      'node',
      [
        '--input-type=module',
        '-e',
        `import * as m from '${name}'; console.log(JSON.stringify(Object.keys(m).sort()))`,
      ],
      project,
    );
    const cjs = run(
      'node',
      ['-e', `console.log(JSON.stringify(Object.keys(require('${name}')).sort()))`],
      project,
    );
    const esmKeys = JSON.parse(esm) as string[];
    expect(esmKeys.length).toBeGreaterThan(0);
    expect(JSON.parse(cjs)).toEqual(esmKeys);
  });

  it('recognises an error thrown by the CJS build with the ESM build, and the reverse', () => {
    const script = `
      import { createRequire } from 'node:module';
      import * as esm from '@parley/core';
      const cjs = createRequire(import.meta.url)('@parley/core');
      const fromCjs = new cjs.CoreError('json_syntax', 'x');
      const fromEsm = new esm.CoreError('json_syntax', 'x');
      console.log(JSON.stringify([esm.isParleyError(fromCjs, 'json_syntax'), cjs.isParleyError(fromEsm, 'json_syntax'), fromCjs instanceof esm.CoreError]));
    `;
    expect(JSON.parse(run('node', ['--input-type=module', '-e', script], project))).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('works end to end from CJS: a store with TTL on a manual clock', () => {
    const script = `
      const { createManualClock, createMemoryStore } = require('@parley/core');
      const clock = createManualClock();
      const store = createMemoryStore({ clock });
      store.set('k', { a: 1 }, { ttlMs: 10 }).then(async () => {
        const before = await store.get('k');
        clock.advance(10);
        console.log(JSON.stringify([before, await store.get('k') ?? null]));
      });
    `;
    expect(JSON.parse(run('node', ['-e', script], project))).toEqual([{ a: 1 }, null]);
  });

  it('ships only dist, package.json, README and LICENSE', () => {
    const listing = run('npm', ['pack', '--dry-run', '--json'], packages[0]?.dir ?? '.');
    const files = (JSON.parse(listing) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files.every((f) => /^(dist\/|package\.json$|README\.md$|LICENSE$)/.test(f))).toBe(true);
    expect(files).toContain('dist/index.d.cts');
  });
});
