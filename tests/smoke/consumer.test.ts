// Proves the packages work for someone who installs them from npm: each built package is packed
// with `npm pack`, the tarballs are installed into a fresh project outside the workspace, and
// every package is used the ways the README promises: ESM, CJS without Node's require(esm) (which
// Node 20.0–20.18 lack), a Jest test with Jest's default config (its CommonJS runtime), a
// `node:test` test and a browser bundle. A second project installs @parley/testing with only the
// packages its public types name. `npm test` builds before running this.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { subset } from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { listPackages } from '../../scripts/packages.mjs';

interface Pkg {
  name: string;
  dir: string;
  manifest: {
    engines?: { node?: string };
    peerDependencies?: Record<string, string>;
    exports?: Record<string, unknown>;
  };
}

/**
 * Packages whose main entry is for Node only, as their README says: the console answers `node:http`
 * requests (it serves a browser; it does not run in one).
 */
const NODE_ONLY = new Set(['@parley/console']);

const packages = (listPackages() as Pkg[]).filter((p) => existsSync(join(p.dir, 'dist', 'index.js')));
const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Every subpath export of a built package (`@parley/testing/loopback`, `@parley/telegram/testing`, …). */
const subpaths = packages.flatMap((p) =>
  Object.keys(p.manifest.exports ?? {})
    .filter((key) => key !== '.' && key !== './package.json')
    .map((key) => [`${p.name}${key.slice(1)}`]),
);

/** Node without require(esm): how Node 20.0–20.18 load a CJS package. */
const CJS = ['--no-experimental-require-module'];
const root = new URL('../..', import.meta.url).pathname;

let workdir = '';
let project = '';
let tarballs = '';

/** A fresh project in the work directory with the named packages' tarballs installed. */
function installProject(dirName: string, names: string[]): string {
  const dir = join(workdir, dirName);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: dirName, version: '1.0.0', private: true }),
  );
  const files = readdirSync(tarballs)
    .filter((f) => names.some((name) => f.startsWith(`${name.replace('@', '').replace('/', '-')}-`)))
    .map((f) => join(tarballs, f));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', ...files], dir);
  return dir;
}

beforeAll(() => {
  workdir = mkdtempSync(join(tmpdir(), 'parley-consumer-'));
  tarballs = join(workdir, 'tarballs');
  mkdirSync(tarballs);
  for (const pkg of packages) run('npm', ['pack', '--silent', '--pack-destination', tarballs], pkg.dir);
  project = installProject(
    'consumer',
    packages.map((p) => p.name),
  );
}, 300_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe('installed from packed tarballs', () => {
  it('has at least @parley/core built', () => {
    expect(packages.map((p) => p.name)).toContain('@parley/core');
  });

  it.each([...packages.map((p) => [p.name]), ...subpaths])(
    '%s imports from ESM and CJS with the same exports',
    (name) => {
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
        [...CJS, '-e', `console.log(JSON.stringify(Object.keys(require('${name}')).sort()))`],
        project,
      );
      const esmKeys = JSON.parse(esm) as string[];
      expect(esmKeys.length).toBeGreaterThan(0);
      expect(JSON.parse(cjs)).toEqual(esmKeys);
    },
  );

  it.runIf(subpaths.some(([name]) => name === '@parley/telegram/testing'))(
    'starts the Telegram stand-in of @parley/telegram/testing from ESM and from CJS',
    () => {
      const getMe = (t: string) =>
        `fetch(\`\${${t}.url}/bot\${${t}.token}/getMe\`, { method: 'POST' }).then((r) => r.json())`;
      const esm = `
        import { createTelegramStandIn } from '@parley/telegram/testing';
        const telegram = await createTelegramStandIn();
        const answer = await ${getMe('telegram')};
        await telegram.close();
        console.log(JSON.stringify(answer.result.username));
      `;
      const cjs = `
        const { createTelegramStandIn } = require('@parley/telegram/testing');
        createTelegramStandIn().then(async (telegram) => {
          const answer = await ${getMe('telegram')};
          await telegram.close();
          console.log(JSON.stringify(answer.result.username));
        });
      `;
      expect(JSON.parse(run('node', ['--input-type=module', '-e', esm], project))).toBe('shop_bot');
      expect(JSON.parse(run('node', [...CJS, '-e', cjs], project))).toBe('shop_bot');
    },
  );

  it.runIf(subpaths.some(([name]) => name === '@parley/slack/testing'))(
    'starts the Slack stand-in of @parley/slack/testing from ESM and from CJS',
    () => {
      const authTest = (s: string) =>
        `fetch(\`\${${s}.url}auth.test\`, { method: 'POST', headers: { authorization: \`Bearer \${${s}.token}\` } }).then((r) => r.json())`;
      const esm = `
        import { createSlackStandIn } from '@parley/slack/testing';
        const slack = await createSlackStandIn();
        const answer = await ${authTest('slack')};
        await slack.close();
        console.log(JSON.stringify(answer.user_id));
      `;
      const cjs = `
        const { createSlackStandIn } = require('@parley/slack/testing');
        createSlackStandIn().then(async (slack) => {
          const answer = await ${authTest('slack')};
          await slack.close();
          console.log(JSON.stringify(answer.user_id));
        });
      `;
      expect(JSON.parse(run('node', ['--input-type=module', '-e', esm], project))).toBe('U0BOT00001');
      expect(JSON.parse(run('node', [...CJS, '-e', cjs], project))).toBe('U0BOT00001');
    },
  );

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
    expect(JSON.parse(run('node', [...CJS, '-e', script], project))).toEqual([{ a: 1 }, null]);
  });

  it("runs a Jest test using @parley/testing with Jest's default config (CommonJS)", () => {
    writeFileSync(
      join(project, 'fake-clock.test.js'),
      `const { createFakeClock } = require('@parley/testing');
const { generateId } = require('@parley/core');
test('a timer fires when the fake clock reaches it', () => {
  const clock = createFakeClock({ now: 0 });
  let fired = 0;
  clock.setTimeout(() => fired++, 30000);
  expect(clock.advanceToNextTimer()).toBe(30000);
  expect(fired).toBe(1);
  expect(generateId('req_')).toMatch(/^req_[\\w-]{21}$/);
});
`,
    );
    const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
    const result = spawnSync('node', [jest, '--ci', '--rootDir', project, 'fake-clock'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: CJS[0] },
    });
    expect(result.stderr).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(result.status).toBe(0);
  });

  it('runs a node:test test using @parley/testing and @parley/bus', () => {
    writeFileSync(
      join(project, 'bus.test.mjs'),
      `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessageBus } from '@parley/bus';
import { createFakeChannel, assertSent } from '@parley/testing';
test('a message published on the bus reaches the fake channel', async () => {
  const bus = createMessageBus();
  const channel = createFakeChannel({ channel: 'feishu' });
  await bus.attach(channel);
  await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'Reply 确认 to proceed' });
  assert.equal(assertSent(channel, '确认', { chatId: 'g1' }).sessionKey, 'feishu:g1');
});
`,
    );
    expect(run('node', ['--test', '--test-reporter=tap', 'bus.test.mjs'], project)).toMatch(
      /# pass 1\n# fail 0/,
    );
  });

  it('bundles every package for the browser, except the Node-only console', async () => {
    const entry = join(project, 'browser-entry.mjs');
    const forBrowsers = packages.filter((p) => !NODE_ONLY.has(p.name));
    expect(forBrowsers.length).toBe(packages.length - NODE_ONLY.size);
    writeFileSync(entry, forBrowsers.map((p, i) => `export * as p${i} from '${p.name}';`).join('\n'));
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: project,
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      // The libraries an integration binds to are peers the app installs and bundles itself (or,
      // like ioredis, dingtalk-stream and pg, never runs in a browser): left out, so what is
      // checked is Parley's own code. Some of them (ai, @langchain/core, @openai/agents) reach
      // node: modules in their own builds.
      external: [
        ...new Set(
          packages.flatMap((p) =>
            Object.keys(p.manifest.peerDependencies ?? {}).filter((name) => !name.startsWith('@parley/')),
          ),
        ),
      ],
      write: false,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    expect(new TextDecoder().decode(result.outputFiles[0]?.contents)).not.toMatch(/["']node:/);
  });

  it('installs nothing that asks for a newer Node than the packages promise (engines)', () => {
    const promised = new Set(packages.map((p) => p.manifest.engines?.node));
    expect([...promised]).toEqual(['>=20']);
    // Every installed package's own package.json (not the nested ones some packages ship in subfolders).
    const manifestPath =
      /^(?:(?:@[^/]+\/)?[^/@][^/]*\/node_modules\/)*(?:@[^/]+\/)?[^/@][^/]*\/package\.json$/;
    const tooNew: string[] = [];
    const modules = join(project, 'node_modules');
    for (const entry of readdirSync(modules, { recursive: true, encoding: 'utf8' })) {
      if (!manifestPath.test(entry)) continue;
      const manifest = JSON.parse(readFileSync(join(modules, entry), 'utf8')) as {
        name: string;
        engines?: { node?: string };
      };
      const node = manifest.engines?.node;
      if (node !== undefined && !subset('>=20.0.0', node)) tooNew.push(`${manifest.name}: node ${node}`);
    }
    expect(tooNew).toEqual([]);
  });

  it('ships only dist, package.json, README and LICENSE', () => {
    const listing = run('npm', ['pack', '--dry-run', '--json'], packages[0]?.dir ?? '.');
    const files = (JSON.parse(listing) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files.every((f) => /^(dist\/|package\.json$|README\.md$|LICENSE$)/.test(f))).toBe(true);
    expect(files).toContain('dist/index.d.cts');
  });
});

describe('@parley/testing with only what its fakes need', () => {
  it('installs with core, bus and conflict alone and runs a fake clock from ESM and CJS', () => {
    const light = installProject('light', [
      '@parley/testing',
      '@parley/core',
      '@parley/bus',
      '@parley/conflict',
    ]);
    const installed = readdirSync(join(light, 'node_modules', '@parley')).sort();
    expect(installed).toEqual(['bus', 'conflict', 'core', 'testing']);
    const script = (load: string): string =>
      `${load}; const c = createFakeClock({ now: 0 }); let n = 0; c.setTimeout(() => n++, 5); c.advanceToNextTimer(); console.log(n);`;
    expect(
      run(
        'node',
        ['--input-type=module', '-e', script("import { createFakeClock } from '@parley/testing'")],
        light,
      ),
    ).toBe('1\n');
    expect(
      run('node', [...CJS, '-e', script("const { createFakeClock } = require('@parley/testing')")], light),
    ).toBe('1\n');
  }, 120_000);
});
