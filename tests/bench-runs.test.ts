// bench/runs.mjs on a throwaway suite: a set saved with --save and read back with --with gives the
// same table, and --against checks each median against a printed range, failing when one is outside.
// The figures are whatever the machine measures; only how the script treats them is asserted.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bench = fileURLToPath(new URL('../bench/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs runs.mjs with `args` on the folder of throwaway suites; resolves with its exit and output. */
function runs(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(bench, 'runs.mjs'), ...args],
      {
        cwd: bench,
        env: {
          ...process.env,
          PARLEY_BENCH_CASES: dir,
          PARLEY_BENCH_ROUNDS: '2',
          PARLEY_BENCH_WINDOW_MS: '5',
          PARLEY_BENCH_WARM_UP_MS: '20',
          PARLEY_BENCH_PROCESSES: '1',
        },
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The markdown rows of the first table in `text` whose header starts with `| suite |`. */
const tableRows = (text: string): string[] => {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| suite |'));
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows;
};

const saved = join(dir, 'set.json');
let first: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  const lib = JSON.stringify(join(bench, 'lib.ts'));
  writeFileSync(
    join(dir, 'tiny.bench.ts'),
    `import { suite } from ${lib};
const work = (n: number) => () => {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + i * 7) % 1_000_003;
  return x;
};
suite('tiny: loops', {
  cases: { heavy: () => work(10_000), light: () => work(1_000) },
  goals: [{ case: 'heavy', vs: 'light', slowerByAtMost: 1_000 }, { case: 'light', vs: 'heavy' }],
});`,
  );
  first = await runs(['--runs', '2', '--max-load', '1000', '--save', saved, 'tiny']);
}, 120_000);

describe('bench/runs.mjs', () => {
  it('prints the median and range of the runs and saves them', () => {
    expect(first.stderr).toContain('run 2 of 2');
    expect(first.code).toBe(0);
    const rows = tableRows(first.stdout);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /^\| tiny \| loops: heavy vs light \| ≤ 1000× slower \| [\d.]+× (slower|faster) \| [\d.]+× \w+ – [\d.]+× \w+ \| 2 of 2 \|$/,
    );
    expect(rows[1]).toMatch(/^\| tiny \| loops: light vs heavy \| — \| .* \| — \|$/);
    const set = JSON.parse(readFileSync(saved, 'utf8'));
    expect(set.runs).toHaveLength(2);
    expect(set.filter).toBe('tiny');
    expect(set.machine).toMatch(/ × \d+$/);
    for (const run of set.runs)
      for (const record of run) {
        expect(record.ns.case).toBeGreaterThan(0);
        expect(record.ns.vs).toBeGreaterThan(0);
      }
  });

  it("prints each side's time per operation under the table, once per side, and the machine of each set", async () => {
    const again = await runs(['--runs', '0', '--with', saved]);
    expect(again.code).toBe(0);
    const set = JSON.parse(readFileSync(saved, 'utf8'));
    expect(again.stdout).toContain(`, ${set.machine})`);
    const lines = again.stdout.split('\n');
    const at = lines.findIndex((line) => line.startsWith('| suite | side | median of 2 | range |'));
    expect(at).toBeGreaterThan(-1);
    const sides = lines.slice(at + 2).filter((line) => line.startsWith('|'));
    // heavy and light are each in two comparisons: one row each, with the median of the two runs
    expect(sides).toHaveLength(2);
    const heavyTimes = set.runs.map(
      (run: { case: string; ns: { case: number } }[]) => run.find((r) => r.case === 'heavy')?.ns.case,
    ) as number[];
    const heavyMedian = ((heavyTimes[0] as number) + (heavyTimes[1] as number)) / 2;
    expect(sides[0]).toBe(
      `| tiny | loops: heavy | ${(heavyMedian / 1e3).toFixed(2)} µs | ${(Math.min(...heavyTimes) / 1e3).toFixed(2)} µs – ${(Math.max(...heavyTimes) / 1e3).toFixed(2)} µs |`,
    );
    expect(sides[1]).toMatch(/^\| tiny \| loops: light \| [\d.]+ µs \| [\d.]+ µs – [\d.]+ µs \|$/);

    // a set saved before the times were recorded: the same table of ratios, and no table of times
    const older = structuredClone(set);
    delete older.machine;
    for (const run of older.runs) for (const record of run) delete record.ns;
    const olderFile = join(dir, 'older.json');
    writeFileSync(olderFile, JSON.stringify(older));
    const old = await runs(['--runs', '0', '--with', olderFile]);
    expect(old.code).toBe(0);
    expect(tableRows(old.stdout)).toEqual(tableRows(again.stdout));
    expect(old.stdout).not.toContain('| suite | side |');
  });

  it('reads a saved set back with --runs 0 --with: the same table, under the filter it was run with', async () => {
    const again = await runs(['--runs', '0', '--with', saved]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`2 runs of \`node bench/run.mjs tiny\`: 2 from ${saved}`);
    expect(tableRows(again.stdout)).toEqual(tableRows(first.stdout));
    const other = await runs(['--runs', '0', '--with', saved, 'tiny: loops']);
    expect(other.stderr).toContain("ran the suites matching 'tiny', this table 'tiny: loops'");
    expect(tableRows(other.stdout)).toEqual(tableRows(first.stdout));
  });

  it('counts a goal met in four runs of five (or the same share) as met, and fewer as missed, in bold', async () => {
    const set = JSON.parse(readFileSync(saved, 'utf8'));
    const missed = structuredClone(set);
    for (const run of missed.runs) for (const record of run) record.ok = false;
    const file = join(dir, 'missed.json');
    writeFileSync(file, JSON.stringify(missed));
    const met = await runs([
      '--runs',
      '0',
      ...[saved, saved, file, saved, saved].flatMap((f) => ['--with', f]),
      'tiny',
    ]);
    expect(met.code).toBe(0);
    expect(tableRows(met.stdout)[0]).toMatch(/\| 8 of 10 \|$/); // four in five
    const under = await runs(['--runs', '0', '--with', saved, '--with', file, '--with', saved, 'tiny']);
    expect(under.code).toBe(0);
    expect(tableRows(under.stdout)[0]).toMatch(/\| \*\*4 of 6\*\* \|$/); // under four in five
  });

  it('--against: inside a printed range passes; outside it fails, naming the row', async () => {
    const [row] = tableRows(first.stdout);
    const cells = (row as string).split('|').map((cell) => cell.trim());
    const median = cells[4] as string;
    const printed = (range: string) =>
      `# Benchmarks\n\n### a set\n\n| suite | comparison | goal | median of 5 | range | goal met |\n|---|---|---|---|---|---|\n| tiny | loops: heavy vs light | ≤ 1000× slower | ${median} | ${range} | 5 of 5 |\n`;
    const inside = join(dir, 'inside.md');
    writeFileSync(inside, printed(`${median} – ${median}`));
    const pass = await runs(['--runs', '0', '--with', saved, '--against', inside, 'tiny']);
    expect(pass.stderr).toBe('');
    expect(pass.code).toBe(0);
    expect(pass.stdout).toContain(
      `| tiny | loops: heavy vs light | ${median} | ${median} – ${median} | ${median} | yes |`,
    );
    expect(pass.stdout).toContain('Every comparison both tables hold is inside the printed range.');

    const outside = join(dir, 'outside.md');
    writeFileSync(outside, printed('1000.00× faster – 2000.00× faster'));
    const fail = await runs(['--runs', '0', '--with', saved, '--against', outside, 'tiny']);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toContain('| **no** |');
    expect(fail.stdout).toContain('1 comparison(s) outside the printed range.');
  });

  it('refuses a file that is not a saved set or holds a comparison of another shape, a printed table with none of its comparisons, and --runs 0 alone', async () => {
    const notSaved = join(dir, 'not-saved.json');
    writeFileSync(notSaved, '{"hello":1}');
    const bad = await runs(['--runs', '0', '--with', notSaved]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not a set saved by bench/runs.mjs --save');
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, readFileSync(saved, 'utf8').slice(0, 200)); // a set whose write was cut short
    const broken = await runs(['--runs', '0', '--with', cut]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${cut} cannot be read as a saved set`);
    // a set of another shape: its table would have printed NaN
    const set = JSON.parse(readFileSync(saved, 'utf8')) as { runs: Record<string, unknown>[][] };
    const shaped = join(dir, 'shaped.json');
    (set.runs[1] as Record<string, unknown>[])[0] = { ...set.runs[1]?.[0], ratio: '2.5' };
    writeFileSync(shaped, JSON.stringify(set));
    const other = await runs(['--runs', '0', '--with', shaped]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      `${shaped}: run 2, comparison 1 is not one bench/run.mjs wrote (ratio "2.5"`,
    );
    expect(other.stdout).not.toContain('NaN');
    const timed = JSON.parse(readFileSync(saved, 'utf8')) as { runs: Record<string, unknown>[][] };
    (timed.runs[0] as Record<string, unknown>[])[1] = { ...timed.runs[0]?.[1], ns: { case: 'x', vs: 1 } };
    const badTimes = join(dir, 'bad-times.json');
    writeFileSync(badTimes, JSON.stringify(timed));
    const noTimes = await runs(['--runs', '0', '--with', badTimes]);
    expect(noTimes.code).toBe(1);
    expect(noTimes.stderr).toContain(`${badTimes}: run 1, comparison 2 is not one bench/run.mjs wrote (ns`);

    const otherTable = join(dir, 'other.md');
    writeFileSync(
      otherTable,
      '| suite | comparison | goal | median of 5 | range | goal met |\n|---|---|---|---|---|---|\n| x | y: a vs b | — | 2.00× slower | 2.10× slower – 1.90× slower | — |\n',
    );
    const none = await runs(['--runs', '0', '--with', saved, '--against', otherTable]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("table has none of this set's comparisons");

    const alone = await runs(['--runs', '0']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--runs 0 needs at least one --with FILE');
  });
});
