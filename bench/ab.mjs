// A/B: each case of a time suite as built from another commit (the base) and as built here, timed
// interleaved in one run, so a change of a few percent is told from the machine's drift.
//
//   node bench/ab.mjs <ref> [filter] [--case part]   the base is commit <ref>, built into a tree of
//                                                     its own under the temporary folder (kept)
//   node bench/ab.mjs --base-cases DIR [filter]      the base is the case files in DIR
//
// filter picks suites as run.mjs does (`a|b`); --case keeps the cases whose name contains `part`;
// --runs N times each suite N times over and prints the median of the runs; --json FILE keeps them.
// The packages here must be built (`npm run build`); the base tree links this checkout's
// node_modules, so both sides run the same third-party versions. See bench/README.md, "A/B".
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { prepareTree, resolveCommit } from './ab-tree.mjs';
import { ROUNDS, roundRatios, runInterleaved } from './interleave.mjs';

const here = new URL('.', import.meta.url).pathname;
/**
 * Processes per case and side: more than run.mjs's three, since a process can stay slower for its
 * whole life and a change of a few percent is what is looked for (PARLEY_BENCH_PROCESSES sets it).
 */
export const AB_PROCESSES = Number(process.env.PARLEY_BENCH_PROCESSES ?? 8);
if (!Number.isInteger(AB_PROCESSES) || AB_PROCESSES < 1) {
  throw new Error('bench ab: PARLEY_BENCH_PROCESSES wants a whole number of at least 1');
}

/** The command line: `{ ref, baseCases, filter, casePart, json }`; throws on what it cannot read. */
export function parseArgs(argv) {
  const options = {
    ref: undefined,
    baseCases: undefined,
    filter: '',
    casePart: '',
    json: undefined,
    runs: 1,
  };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`bench ab: ${arg} wants a value`);
      return next;
    };
    if (arg === '--base-cases') options.baseCases = resolve(value());
    else if (arg === '--case') options.casePart = value();
    else if (arg === '--json') options.json = resolve(value());
    else if (arg === '--runs') {
      options.runs = Number(value());
      if (!Number.isInteger(options.runs) || options.runs < 1) {
        throw new Error('bench ab: --runs wants a whole number of at least 1');
      }
    } else if (arg.startsWith('--')) throw new Error(`bench ab: unknown option ${arg}`);
    else positional.push(arg);
  }
  if (options.baseCases === undefined) options.ref = positional.shift();
  if (options.ref === undefined && options.baseCases === undefined) {
    throw new Error('bench ab: name the base, a commit (node bench/ab.mjs HEAD~1) or --base-cases DIR');
  }
  options.filter = positional.shift() ?? '';
  if (positional.length > 0) throw new Error(`bench ab: unexpected ${positional.join(' ')}`);
  return options;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * How many times faster `b` runs than `a` (below 1: slower), from one interleaved run: the median
 * of every round's ratio, the same per process pair (round ratios of process k of both), and the
 * CPU ratio. Process pairs that disagree show a process that stayed slower for its whole life.
 */
export function compare(a, b, processes = AB_PROCESSES) {
  const wall = roundRatios(b, a);
  const perProcess = Array.from({ length: processes }, (_, k) =>
    median(wall.each.filter((_, i) => i % processes === k)),
  );
  return { median: wall.median, perProcess, cpu: roundRatios(b, a, 'cpuNs').median };
}

/** `2.430× faster` or `1.100× slower`, for a ratio of how many times faster. */
export const times = (ratio) =>
  ratio >= 1 ? `${ratio.toFixed(3)}× faster` : `${(1 / ratio).toFixed(3)}× slower`;

/** `2.430× faster than base`, or `as fast as base (1.000×)` when it rounds to 1 either way. */
export const thanBase = (ratio) => {
  const text = times(ratio);
  return text.startsWith('1.000×') ? 'as fast as base (1.000×)' : `${text} than base`;
};

/** This checkout's tsx, for both sides: a folder of case files elsewhere may have no node_modules. */
const tsx = import.meta.resolve('tsx');

function listSuites(casesDir, file, filter) {
  const out = execFileSync(process.execPath, ['--import', tsx, join(casesDir, file)], {
    cwd: dirname(casesDir),
    env: { ...process.env, NODE_ENV: 'production', PARLEY_BENCH_MODE: 'list', PARLEY_BENCH_FILTER: filter },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const last = out.trim().split('\n').at(-1);
  const suites = last === undefined || last === '' ? [] : JSON.parse(last);
  return suites.filter(
    // A suite whose cases start servers of their own (`alone`) cannot be interleaved.
    (s) =>
      (s.kind ?? 'time') === 'time' &&
      s.alone !== true &&
      (!filter || filter.split('|').some((p) => s.name.includes(p))),
  );
}

async function main(argv) {
  const options = parseArgs(argv);
  const hereCases = process.env.PARLEY_BENCH_CASES ?? join(here, 'cases');
  let baseCases = options.baseCases;
  let baseLabel = `--base-cases ${baseCases}`;
  if (baseCases === undefined) {
    const repo = join(here, '..');
    const sha = resolveCommit(repo, options.ref);
    baseLabel = `${options.ref} (${sha.slice(0, 10)})`;
    console.log(`Base: ${baseLabel}; preparing its tree (built once, then reused)…`);
    baseCases = join(prepareTree(repo, sha), 'bench', 'cases');
  }
  if (!existsSync(baseCases)) throw new Error(`bench ab: no case folder ${baseCases}`);
  const nodeArgs = (dir, file) => ['--expose-gc', '--import', tsx, join(dir, file)];
  const records = [];
  const files = readdirSync(hereCases).filter(
    (f) => f.endsWith('.bench.ts') && existsSync(join(baseCases, f)),
  );
  for (const file of files.sort()) {
    const baseSuites = new Map(listSuites(baseCases, file, options.filter).map((s) => [s.name, s]));
    for (const suite of listSuites(hereCases, file, options.filter)) {
      const base = baseSuites.get(suite.name);
      if (base === undefined) continue;
      const cases = suite.cases.filter((c) => base.cases.includes(c) && c.includes(options.casePart));
      if (cases.length === 0) continue;
      console.log(
        `\n▸ ${suite.name}  (load average ${loadavg()[0].toFixed(2)}; ${ROUNDS} rounds × ${AB_PROCESSES} processes per side)`,
      );
      const specs = cases.flatMap((c) => [
        { name: `base: ${c}`, case: c, args: nodeArgs(baseCases, file), cwd: dirname(baseCases) },
        { name: `here: ${c}`, case: c, args: nodeArgs(hereCases, file), cwd: dirname(hereCases) },
      ]);
      const env = { ...process.env, NODE_ENV: 'production', PARLEY_BENCH_MODE: 'worker' };
      const medians = new Map(cases.map((c) => [c, []]));
      for (let run = 1; run <= options.runs; run++) {
        if (options.runs > 1)
          console.log(`  run ${run} of ${options.runs} (load average ${loadavg()[0].toFixed(2)})`);
        // Alternating (base, here, base, here…): with each side's processes one after another, the
        // chat-flow host of two commits 4 % apart read 1.28× and 1.31× apart in two runs (1.04× so).
        const results = await runInterleaved([], { env }, suite.name, specs, {
          alternate: true,
          processes: AB_PROCESSES,
        });
        const side = (which, c) => results[`${which}: ${c}`];
        for (const c of cases) {
          const r = compare(side('base', c), side('here', c));
          const each = r.perProcess.map((x) => x.toFixed(3)).join(', ');
          console.log(`  ${c}: here ${thanBase(r.median)}  (per process pair ${each}; CPU ${times(r.cpu)})`);
          medians.get(c).push(r.median);
          records.push({ suite: suite.name, case: c, run, ...r, load: loadavg()[0] });
        }
        // The suite's own comparisons, as each side reads them in this same run.
        for (const goal of suite.goals.filter((g) => cases.includes(g.case) && cases.includes(g.vs))) {
          const ratio = (which) => times(roundRatios(side(which, goal.case), side(which, goal.vs)).median);
          console.log(`  · ${goal.case} vs ${goal.vs}: base ${ratio('base')}, here ${ratio('here')}`);
        }
      }
      if (options.runs > 1) {
        for (const [c, all] of medians) {
          const each = all.map((x) => x.toFixed(3)).join(', ');
          console.log(`  = ${c}: here ${thanBase(median(all))}, median of ${all.length} runs (${each})`);
        }
      }
    }
  }
  if (records.length === 0)
    throw new Error(`bench ab: no time suite matches "${options.filter}" on both sides`);
  if (options.json !== undefined) writeFileSync(options.json, JSON.stringify(records));
  console.log(
    `\nBase: ${baseLabel}. A case whose code is the same on both sides (a hand-written baseline) shows this run's noise.`,
  );
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
