// bench/ab.mjs: the base's tree made from a commit (files from git, this checkout's dependencies
// linked, the workspace's own links pointing into the tree, its build run once and then reused),
// and a case of two builds timed interleaved, ten times the loop reading slower. No duration is
// asserted: only which side does more work.
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the bench, without types
import { compare, parseArgs, thanBase, times } from '../bench/ab.mjs';
// @ts-expect-error: a plain .mjs script of the bench, without types
import { prepareTree, resolveCommit } from '../bench/ab-tree.mjs';

const bench = fileURLToPath(new URL('../bench/', import.meta.url));
const dirs: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-ab-test-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

/** A repository with one workspace package, a build script that logs its arguments, and node_modules. */
function repository(): { repo: string; sha: string } {
  const repo = temp();
  const write = (path: string, text: string): void => {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  write(
    'scripts/build.mjs',
    `import { appendFileSync } from 'node:fs';
appendFileSync(new URL('../built.txt', import.meta.url), process.argv.slice(2).join(' ') + '\\n');
if (process.env.PARLEY_AB_TEST_FAIL) process.exit(3);
`,
  );
  // What the bench imports is what gets built (and what those need, which the build adds).
  write('bench/cases/one.bench.ts', "import { version } from '@parley/core';\nimport z from 'zz';\n");
  write('bench/lib.ts', "export { version } from '@parley/core';\n");
  write('packages/protocols/core/index.js', 'export const version = "committed";\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'one');
  // Installed, not committed: the workspace's relative link and a third-party package.
  mkdirSync(join(repo, 'node_modules', '@parley'), { recursive: true });
  symlinkSync('../../packages/protocols/core', join(repo, 'node_modules', '@parley', 'core'));
  write('node_modules/zz/index.js', 'export default 1;\n');
  write('bench/node_modules/nanoid/index.js', 'export default 2;\n');
  // A change after the commit, which the base's tree must not see.
  write('packages/protocols/core/index.js', 'export const version = "uncommitted";\n');
  return { repo, sha: git(repo, 'rev-parse', 'HEAD') };
}

describe('bench/ab-tree.mjs', () => {
  it('makes the tree of a commit: its files, this checkout’s dependencies, its own packages, built once', () => {
    const { repo, sha } = repository();
    expect(resolveCommit(repo, 'HEAD')).toBe(sha);
    const dir = join(temp(), 'tree');
    expect(prepareTree(repo, sha, { dir, log: 'ignore' })).toBe(dir);
    expect(readFileSync(join(dir, 'packages/protocols/core/index.js'), 'utf8')).toContain('"committed"');
    // The workspace link points into the tree; a third-party package is this checkout's.
    expect(realpathSync(join(dir, 'node_modules/@parley/core'))).toBe(
      realpathSync(join(dir, 'packages/protocols/core')),
    );
    expect(realpathSync(join(dir, 'node_modules/zz'))).toBe(realpathSync(join(repo, 'node_modules/zz')));
    expect(realpathSync(join(dir, 'bench/node_modules/nanoid'))).toBe(
      realpathSync(join(repo, 'bench/node_modules/nanoid')),
    );
    // Built with the bench's own @parley dependencies named, and not again when asked again.
    expect(readFileSync(join(dir, 'built.txt'), 'utf8')).toBe('@parley/core\n');
    prepareTree(repo, sha, { dir, log: 'ignore' });
    expect(readFileSync(join(dir, 'built.txt'), 'utf8')).toBe('@parley/core\n');
  });

  it('makes a half-made tree again: a failed build leaves it unfinished, and the next call starts over', () => {
    const { repo, sha } = repository();
    const dir = join(temp(), 'tree');
    process.env.PARLEY_AB_TEST_FAIL = '1';
    try {
      expect(() => prepareTree(repo, sha, { dir, log: 'ignore' })).toThrow(/build\.mjs/);
    } finally {
      delete process.env.PARLEY_AB_TEST_FAIL;
    }
    expect(existsSync(join(dir, '.parley-ab-ready'))).toBe(false);
    prepareTree(repo, sha, { dir, log: 'ignore' });
    // Started over: the failed build's line went with the half-made tree.
    expect(readFileSync(join(dir, 'built.txt'), 'utf8')).toBe('@parley/core\n');
    expect(existsSync(join(dir, '.parley-ab-ready'))).toBe(true);
  });

  it('refuses a name that is no commit, and a node_modules whose workspace entry is not a link', () => {
    const { repo, sha } = repository();
    expect(() => resolveCommit(repo, 'no-such-branch')).toThrow('"no-such-branch" names no commit');
    rmSync(join(repo, 'node_modules/@parley/core'));
    mkdirSync(join(repo, 'node_modules/@parley/core'));
    expect(() => prepareTree(repo, sha, { dir: join(temp(), 'tree'), log: 'ignore' })).toThrow(
      'is not a workspace link',
    );
  });
});

describe('bench/ab.mjs', () => {
  it('reads its command line, and refuses one without a base or with an unknown option', () => {
    expect(parseArgs(['HEAD~1', 'fsm: one chat'])).toMatchObject({ ref: 'HEAD~1', filter: 'fsm: one chat' });
    expect(parseArgs(['--base-cases', '/tmp/x', 'tools', '--case', 'parley'])).toMatchObject({
      ref: undefined,
      baseCases: '/tmp/x',
      filter: 'tools',
      casePart: 'parley',
    });
    expect(() => parseArgs([])).toThrow('name the base');
    expect(() => parseArgs(['HEAD', '--fast'])).toThrow('unknown option --fast');
    expect(() => parseArgs(['HEAD', 'a', 'b'])).toThrow('unexpected b');
    expect(() => parseArgs(['--case'])).toThrow('--case wants a value');
    expect(parseArgs(['HEAD', '--runs', '3']).runs).toBe(3);
    expect(() => parseArgs(['HEAD', '--runs', '0'])).toThrow('--runs wants a whole number');
    expect(() => parseArgs(['HEAD', '--runs', '1.5'])).toThrow('--runs wants a whole number');
  });

  it('pairs the rounds of each process: a ratio per process pair, and the median of all', () => {
    const side = (perCall: number[]) => ({
      rounds: perCall.map((ns) => ({ calls: 1, wallNs: ns, cpuNs: ns })),
    });
    // Two rounds × two processes: base at 10 ns a call, here at 5 (process 1) and 8 (process 2).
    const r = compare(side([10, 10, 10, 10]), side([5, 8, 5, 8]), 2);
    expect(r.perProcess).toEqual([2, 1.25]);
    expect(r.median).toBeCloseTo(1.625);
    expect(times(2)).toBe('2.000× faster');
    expect(times(0.5)).toBe('2.000× slower');
    expect(thanBase(0.9999)).toBe('as fast as base (1.000×)');
    expect(thanBase(1.0004)).toBe('as fast as base (1.000×)');
    expect(thanBase(1.0006)).toBe('1.001× faster than base');
    expect(thanBase(0.5)).toBe('2.000× slower than base');
  });

  it('times each case as the base and as here, interleaved: ten times the loop reads slower', async () => {
    const sides = { base: 10_000, here: 1_000 };
    const folders: Record<string, string> = {};
    for (const [name, n] of Object.entries(sides)) {
      const dir = join(temp(), name, 'cases');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'tiny.bench.ts'),
        `import { suite } from ${JSON.stringify(join(bench, 'lib.ts'))};
const work = () => { let x = 0; for (let i = 0; i < ${n}; i++) x = (x + i * 7) % 1_000_003; return x; };
const fixed = () => { let x = 0; for (let i = 0; i < 2_000; i++) x = (x + i * 7) % 1_000_003; return x; };
suite('tiny: loops', { cases: { loop: () => work, fixed: () => fixed }, goals: [{ case: 'loop', vs: 'fixed' }] });
`,
      );
      folders[name] = dir;
    }
    const json = join(temp(), 'ab.json');
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (done) => {
        execFile(
          process.execPath,
          [
            join(bench, 'ab.mjs'),
            '--base-cases',
            folders.base as string,
            'tiny',
            '--case',
            'loop',
            '--runs',
            '2',
            '--json',
            json,
          ],
          {
            cwd: bench,
            env: {
              ...process.env,
              PARLEY_BENCH_CASES: folders.here,
              PARLEY_BENCH_ROUNDS: '4',
              PARLEY_BENCH_WINDOW_MS: '5',
              PARLEY_BENCH_PROCESSES: '2',
            },
          },
          (error, out, err) =>
            done({ code: error === null ? 0 : Number(error.code ?? 1), stdout: out, stderr: err }),
        );
      },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const records = JSON.parse(readFileSync(json, 'utf8'));
    // Only the case --case names, once per run; here's loop does a tenth of the base's.
    expect(records.map((r: { case: string; run: number }) => `${r.case} ${r.run}`)).toEqual([
      'loop 1',
      'loop 2',
    ]);
    for (const record of records) {
      expect(record.median).toBeGreaterThan(1);
      expect(record.perProcess).toHaveLength(2);
    }
    expect(stdout).toContain('run 2 of 2');
    expect(stdout).toMatch(/= loop: here [\d.]+× faster than base, median of 2 runs/);
  }, 60_000);

  it('fails naming the filter when no time suite matches on both sides', async () => {
    const dir = join(temp(), 'cases');
    mkdirSync(dir);
    const code = await new Promise<{ code: number; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [join(bench, 'ab.mjs'), '--base-cases', dir, 'nothing-like-this'],
        { cwd: bench, env: { ...process.env, PARLEY_BENCH_CASES: dir } },
        (error, _out, err) => done({ code: error === null ? 0 : Number(error.code ?? 1), stderr: err }),
      );
    });
    expect(code.code).toBe(1);
    expect(code.stderr).toContain('no time suite matches "nothing-like-this" on both sides');
  });
});
