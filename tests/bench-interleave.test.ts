// bench/run.mjs's interleaved mode on throwaway suites: the cases take turns in short windows, the
// ratio says which does more work, and a worker that dies or hangs fails the run naming its case.
// No duration is asserted: only that ten times the work is slower than the work.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bench = fileURLToPath(new URL('../bench/', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs run.mjs on a folder holding one suite file whose body is `source`; resolves with its exit and output. */
function runSuite(
  source: string,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string; records: { ratio: number; rounds: number[] }[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-test-'));
  dirs.push(dir);
  const lib = JSON.stringify(join(bench, 'lib.ts'));
  writeFileSync(join(dir, 'tiny.bench.ts'), `import { suite } from ${lib};\n${source}`);
  const json = join(dir, 'records.json');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(bench, 'run.mjs'), 'tiny'],
      {
        cwd: bench,
        env: {
          ...process.env,
          PARLEY_BENCH_CASES: dir,
          PARLEY_BENCH_JSON: json,
          PARLEY_BENCH_ROUNDS: '4',
          PARLEY_BENCH_WINDOW_MS: '5',
          PARLEY_BENCH_WARM_UP_MS: '20',
          ...env,
        },
      },
      (error, _stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        const records = code === 0 ? JSON.parse(readFileSync(json, 'utf8')) : [];
        resolve({ code, stderr, records });
      },
    );
  });
}

const loops = `
const work = (n: number) => () => {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + i * 7) % 1_000_003;
  return x;
};`;

describe('bench/run.mjs, interleaved windows', () => {
  it('times a sync and an async case in rounds of two processes each, ten times the loop reading slower', async () => {
    const { code, stderr, records } = await runSuite(
      `${loops}
suite('tiny: loops', {
  cases: { light: () => work(1_000), heavy: () => async () => work(10_000)() },
  goals: [{ case: 'light', vs: 'heavy' }],
});`,
      { PARLEY_BENCH_PROCESSES: '2' },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(records).toHaveLength(1);
    expect(records[0]?.rounds).toHaveLength(4 * 2); // a ratio per round and pair of processes
    expect(records[0]?.ratio).toBeGreaterThan(1);
  }, 60_000);

  it('fails the run, naming the case, when a worker exits before it answers', async () => {
    const { code, stderr } = await runSuite(
      `${loops}
// Dies on its first call once run.mjs has written to it (the first window's command), so the
// first process dies in the untimed window it is handed first, whatever the machine's timing.
let windowed = false;
process.stdin.on('data', () => {
  windowed = true;
});
const broken = () => {
  if (windowed) process.exit(3);
  return work(1_000)();
};
suite('tiny: dies', { cases: { broken: () => broken } });`,
      { PARLEY_BENCH_PROCESSES: '2' },
    );
    expect(code).toBe(1);
    expect(stderr).toContain('case "tiny: dies / broken" (process 1) exited (code 3) before it answered');
  }, 60_000);

  // Each case holds a lock file while its process lives, as a case holding a server's port would:
  // a second process of any case started while one lives fails to take it and throws.
  const locked = (lock: string, alone: boolean): string => `${loops}
import { openSync, rmSync } from 'node:fs';
const hold = () => {
  openSync(${JSON.stringify(lock)}, 'wx'); // throws EEXIST while another case's process holds it
  process.on('exit', () => rmSync(${JSON.stringify(lock)}, { force: true }));
};
suite('tiny: servers', {
  alone: ${alone},
  cases: {
    light: () => { hold(); return async () => work(1_000)(); },
    heavy: () => { hold(); return async () => work(10_000)(); },
  },
  goals: [{ case: 'light', vs: 'heavy' }],
});`;

  it('times the cases of an `alone` suite one after another, never two processes at once', async () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'parley-bench-lock-')), 'held');
    dirs.push(join(lock, '..'));
    const { code, stderr, records } = await runSuite(locked(lock, true), {});
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(records).toHaveLength(1);
    expect(records[0]?.rounds).toHaveLength(1); // each case's calls as one round
    expect(records[0]?.ratio).toBeGreaterThan(1);
    // The same suite interleaved keeps its processes alive together, and the second cannot start.
    const interleaved = await runSuite(locked(lock, false), { PARLEY_BENCH_PROCESSES: '2' });
    expect(interleaved.code).toBe(1);
    expect(interleaved.stderr).toContain('EEXIST');
  }, 60_000);

  it('fails the run, naming the case and the deadline, when a worker never gets ready', async () => {
    const { code, stderr } = await runSuite(
      `suite('tiny: hangs', {
  cases: { stuck: () => { setInterval(() => {}, 1_000); return new Promise(() => {}); } },
});`,
      { PARLEY_BENCH_PROCESSES: '1', PARLEY_BENCH_READY_MS: '500' },
    );
    expect(code).toBe(1);
    expect(stderr).toContain('case "tiny: hangs / stuck" did not answer "ready" within 0.5 s');
  }, 60_000);
});
