// Runs every benchmark case in its own Node process and prints a table of ratios. The cases of a time
// suite run interleaved: their processes take turns in short timed windows (bench/interleave.mjs).
// Usage: npm run bench [-- filter]   (filter matches suite names; `a|b` runs the suites matching either)
// PARLEY_BENCH_CASES names another folder of `*.bench.ts` files (the bench's own test uses one).
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { roundRatios, runInterleaved } from './interleave.mjs';

const here = new URL('.', import.meta.url).pathname;
const filter = process.argv[2] ?? '';
const casesDir = process.env.PARLEY_BENCH_CASES ?? join(here, 'cases');
const files = readdirSync(casesDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const nodeArgs = (file) => ['--expose-gc', '--import', 'tsx', join(casesDir, file)];

function runCase(file, env) {
  const out = execFileSync(process.execPath, nodeArgs(file), {
    cwd: here,
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  const last = out.trim().split('\n').at(-1);
  // A file may declare no suite (the scale-out one without redis-server, when not selected).
  return last === undefined || last === '' ? [] : JSON.parse(last);
}

/**
 * The results of cases timed alone as one round each (all their calls), so a comparison reads the
 * ratio of their means as interleaved ones read the median of their rounds.
 */
const aloneRounds = (results) =>
  Object.fromEntries(
    Object.entries(results).map(([name, r]) => [
      name,
      { ...r, rounds: [{ calls: 1, wallNs: r.avgNs, cpuNs: r.cpuNs }] },
    ]),
  );

const fmtTime = (ns) =>
  ns >= 1e6
    ? `${(ns / 1e6).toFixed(2)} ms`
    : ns >= 1e3
      ? `${(ns / 1e3).toFixed(2)} µs`
      : `${ns.toFixed(1)} ns`;
const fmtBytes = (b) => (b >= 1024 ? `${(b / 1024).toFixed(2)} kB` : `${b.toFixed(0)} B`);
let missed = 0;
const summary = [];
/** Every comparison as data, written to PARLEY_BENCH_JSON when set (bench/runs.mjs reads it). */
const records = [];

for (const file of files) {
  const suites = runCase(file, { PARLEY_BENCH_MODE: 'list', PARLEY_BENCH_FILTER: filter });
  for (const suite of suites) {
    if (filter && !filter.split('|').some((part) => suite.name.includes(part))) continue;
    // The load average is part of every figure: on a busy machine ratios move by a factor of two.
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    console.log(`\n▸ ${suite.name}  (load average ${load()})`);
    const memory = suite.kind === 'memory';
    // One process per case, one case after another: memory suites, and time suites whose cases
    // start servers of their own (`alone`), which must not run beside each other.
    const oneByOne = () =>
      Object.fromEntries(
        suite.cases.map((name) => [
          name,
          runCase(file, {
            PARLEY_BENCH_MODE: 'case',
            PARLEY_BENCH_SUITE: suite.name,
            PARLEY_BENCH_CASE: name,
          }),
        ]),
      );
    if (suite.alone) console.log('  (each case timed alone, one after another: not interleaved)');
    const results = memory
      ? oneByOne()
      : suite.alone
        ? aloneRounds(oneByOne())
        : await runInterleaved(
            nodeArgs(file),
            { cwd: here, env: { ...process.env, NODE_ENV: 'production', PARLEY_BENCH_MODE: 'worker' } },
            suite.name,
            suite.cases,
          ).catch((error) => {
            // A worker that died or hung: the run fails, naming the case (its stderr is above).
            console.error(`bench: ${error.message}`);
            process.exit(1);
          });
    for (const name of suite.cases) {
      const r = results[name];
      console.log(
        `  ${name.padEnd(28)} ${suite.kind === 'memory' ? `${fmtBytes(r.bytes)} / instance` : `${fmtTime(r.avgNs)} / op  (p99 ${fmtTime(r.p99Ns)}${r.cpuNs === undefined ? '' : `, CPU ${fmtTime(r.cpuNs)}`})`}`,
      );
    }
    for (const goal of suite.goals) {
      const a = results[goal.case];
      const b = results[goal.vs];
      let line;
      let ok = true;
      if (suite.kind === 'memory') {
        const ratio = b ? b.bytes / a.bytes : undefined;
        ok =
          (goal.maxBytes === undefined || a.bytes <= goal.maxBytes) &&
          (goal.maxRatio === undefined || (b !== undefined && a.bytes <= goal.maxRatio * b.bytes));
        line = `${goal.case}: ${fmtBytes(a.bytes)}${goal.maxBytes ? ` (goal ≤ ${fmtBytes(goal.maxBytes)})` : ''}${ratio ? `, ${ratio.toFixed(1)}× less than ${goal.vs} (${fmtBytes(b.bytes)}; ${(1 / ratio).toFixed(2)}× of it${goal.maxRatio ? `, goal ≤ ${goal.maxRatio}×` : ''})` : ''}`;
      } else {
        // Each round's ratio compares two windows taken moments apart; the median of them is the figure.
        const wall = roundRatios(a, b);
        const ratio = wall.median;
        if (goal.fasterBy !== undefined) ok = ratio >= goal.fasterBy;
        if (goal.slowerByAtMost !== undefined) ok = 1 / ratio <= goal.slowerByAtMost;
        line =
          ratio >= 1
            ? `${goal.case} is ${ratio.toFixed(2)}× faster than ${goal.vs}`
            : `${goal.case} is ${(1 / ratio).toFixed(2)}× slower than ${goal.vs}`;
        if (goal.fasterBy !== undefined) line += ` (goal ≥ ${goal.fasterBy}× faster)`;
        if (goal.slowerByAtMost !== undefined) line += ` (goal ≤ ${goal.slowerByAtMost}× slower)`;
        // Not judged: the goals are on wall-clock time; CPU time per call reads steadier under load.
        // (A sync case timed alone, through mitata, has no CPU time.)
        if (a.cpuNs !== undefined && b.cpuNs !== undefined) {
          const cpu = roundRatios(a, b, 'cpuNs').median;
          line += cpu >= 1 ? ` [CPU ${cpu.toFixed(2)}× faster]` : ` [CPU ${(1 / cpu).toFixed(2)}× slower]`;
        }
      }
      records.push({
        suite: suite.name,
        case: goal.case,
        vs: goal.vs,
        kind: suite.kind ?? 'time',
        // Time: how many times faster the case is than what it is compared with (below 1: slower).
        ratio: memory ? undefined : roundRatios(a, b).median,
        // The same from the summed times of all rounds (b.avgNs / a.avgNs), and each round's ratio.
        ratioOfSums: memory ? undefined : roundRatios(a, b).ofSums,
        rounds: memory ? undefined : roundRatios(a, b).each,
        cpuRatio: memory || a.cpuNs === undefined ? undefined : roundRatios(a, b, 'cpuNs').median,
        // Time: each side's mean per operation over all rounds, in ns (how fast this machine ran both).
        ns: memory ? undefined : { case: a.avgNs, vs: b.avgNs },
        bytes: suite.kind === 'memory' ? a.bytes : undefined,
        goal: {
          fasterBy: goal.fasterBy,
          slowerByAtMost: goal.slowerByAtMost,
          maxBytes: goal.maxBytes,
          maxRatio: goal.maxRatio,
        },
        // Memory: what the case retains per instance as a fraction of what it is compared with.
        share: suite.kind === 'memory' && b ? a.bytes / b.bytes : undefined,
        ok,
        load: loadavg()[0],
      });
      if (!ok) missed++;
      // A comparison without a threshold is a reference for reading the others: shown, not judged.
      const judged = [goal.fasterBy, goal.slowerByAtMost, goal.maxBytes, goal.maxRatio].some(
        (t) => t !== undefined,
      );
      const mark = judged ? (ok ? '✓' : '✗') : '·';
      console.log(`  ${mark} ${line}`);
      summary.push(`${mark} ${suite.name}: ${line}`);
    }
    console.log(`  (load average after the suite: ${load()})`);
  }
}

if (process.env.PARLEY_BENCH_JSON) writeFileSync(process.env.PARLEY_BENCH_JSON, JSON.stringify(records));
console.log(
  `\nSummary\n${summary.join('\n')}\n${missed === 0 ? 'All goals met.' : `${missed} goal(s) missed.`}`,
);
