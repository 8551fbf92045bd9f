// Runs `bench/run.mjs` several times and prints one markdown table of the goals: the median of the runs,
// the lowest and highest run, and in how many runs each goal was met. Before each run it waits until
// the one-minute load average is below the limit (a figure taken on a busy machine is not comparable).
//
// Usage: node bench/runs.mjs [--runs 5] [--max-load 2] [--save FILE] [--with FILE]… [--against FILE.md] [filter]
// (after `npm run build`).
// --save FILE        writes this set's runs to FILE (JSON), to be added to a later set with --with
// --with FILE        adds the runs saved in FILE to the table (the median and range are over all runs)
// --against FILE.md  checks this set against the first table of the same shape in FILE.md (the
//                    README's): for each comparison, is this set's median inside the printed range?
// --runs 0 with --with prints the table of the saved runs alone (under their own filter when no
// filter is given). With --against, a median outside its printed range makes the exit code 1.
// Under the table: each side's time per operation (runs saved before it was recorded have none),
// and each set's Node version and CPU, so a rerun elsewhere can tell a slower machine from a change.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2);
/** Takes every `name value` pair out of `args` and returns the values. */
const values = (name) => {
  const found = [];
  for (let at = args.indexOf(name); at !== -1; at = args.indexOf(name)) {
    const [value] = args.splice(at, 2).slice(1);
    if (value === undefined || value.startsWith('--')) throw new Error(`${name} wants a value`);
    found.push(value);
  }
  return found;
};
const number = (name, fallback, least, whole = false) => {
  const [value] = values(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (whole && !Number.isInteger(parsed)) throw new Error(`${name} wants a whole number, got ${value}`);
  if (!Number.isFinite(parsed) || parsed < least)
    throw new Error(`${name} wants a number of at least ${least}, got ${value}`);
  return parsed;
};
const runs = number('--runs', 5, 0, true);
const maxLoad = number('--max-load', 2, Number.MIN_VALUE);
const [saveTo] = values('--save');
const earlier = values('--with').map(readSaved);
const [against] = values('--against');
if (runs === 0 && earlier.length === 0) throw new Error('--runs 0 needs at least one --with FILE');
/** The suites to run: the argument, or with --runs 0 the saved sets' own filter when they share one. */
const filter =
  args[0] ?? (runs === 0 && new Set(earlier.map((set) => set.filter)).size === 1 ? earlier[0].filter : '');
for (const set of earlier) {
  if (set.filter !== filter)
    process.stderr.write(
      `${set.file} ran the suites matching '${set.filter}', this table '${filter}': only comparisons in every run are shown\n`,
    );
}

/** A set written by --save: `{ filter, started, ended, node, machine?, runs: [[record…]…] }`. */
function readSaved(file) {
  let saved;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} cannot be read as a saved set: ${error.message}`);
  }
  const valid =
    Array.isArray(saved?.runs) &&
    saved.runs.length > 0 &&
    saved.runs.every((run) => Array.isArray(run)) &&
    ['filter', 'started', 'ended', 'node'].every((field) => typeof saved[field] === 'string') &&
    (saved.machine === undefined || typeof saved.machine === 'string');
  if (!valid) throw new Error(`${file} is not a set saved by bench/runs.mjs --save`);
  for (const [i, run] of saved.runs.entries()) {
    for (const [j, record] of run.entries()) {
      const why = recordProblem(record);
      if (why !== undefined)
        throw new Error(`${file}: run ${i + 1}, comparison ${j + 1} is not one bench/run.mjs wrote (${why})`);
    }
  }
  return { ...saved, file };
}

/** Why `r` is not a comparison as run.mjs records it, or undefined: the table would print NaN from it. */
function recordProblem(r) {
  if (typeof r !== 'object' || r === null) return 'not an object';
  const text = ['suite', 'case', 'vs'].find((field) => typeof r[field] !== 'string');
  if (text !== undefined) return `no ${text}`;
  if (r.kind !== 'time' && r.kind !== 'memory') return `kind ${JSON.stringify(r.kind)}`;
  if (typeof r.goal !== 'object' || r.goal === null) return 'no goal';
  if (typeof r.ok !== 'boolean' || !Number.isFinite(r.load)) return 'no ok or load';
  const figure = r.kind === 'time' ? 'ratio' : r.goal.maxRatio !== undefined ? 'share' : 'bytes';
  if (!Number.isFinite(r[figure])) return `${figure} ${JSON.stringify(r[figure])} is not a number`;
  // sets saved before the times per operation were recorded have no `ns`
  const ns = r.ns;
  if (
    ns !== undefined &&
    !(ns !== null && ['case', 'vs'].every((side) => ns[side] > 0 && Number.isFinite(ns[side])))
  )
    return `ns ${JSON.stringify(ns)} is not two times in ns`;
  return undefined;
}

/** Waits (polling every 5 s, at most 10 minutes) until the one-minute load average is below `maxLoad`. */
function waitForQuiet() {
  for (let waited = 0; loadavg()[0] >= maxLoad; waited += 5) {
    if (waited >= 600) throw new Error(`load average still ${loadavg()[0].toFixed(2)} after 10 minutes`);
    execFileSync('sleep', ['5']);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
const fresh = [];
const started = new Date();
try {
  for (let run = 1; run <= runs; run++) {
    waitForQuiet();
    process.stderr.write(`run ${run} of ${runs} (load average ${loadavg()[0].toFixed(2)})\n`);
    const file = join(dir, `run-${run}.json`);
    execFileSync(process.execPath, [join(here, 'run.mjs'), filter], {
      env: { ...process.env, PARLEY_BENCH_JSON: file },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    fresh.push(JSON.parse(readFileSync(file, 'utf8')));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
/** This set, as --save writes it and as the table lists it. */
const thisSet = {
  filter,
  started: started.toISOString(),
  ended: new Date().toISOString(),
  node: process.versions.node,
  // the CPU and how many: ratios taken on another machine may differ (the times per operation say how)
  machine: `${cpus()[0]?.model.trim() ?? 'unknown CPU'} × ${cpus().length}`,
  runs: fresh,
};
if (saveTo !== undefined) writeFileSync(saveTo, `${JSON.stringify(thisSet)}\n`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const times = (r) => (r >= 1 ? `${r.toFixed(2)}× faster` : `${(1 / r).toFixed(2)}× slower`);
const goalText = ({ fasterBy, slowerByAtMost, maxBytes, maxRatio }) =>
  fasterBy !== undefined
    ? `≥ ${fasterBy}× faster`
    : slowerByAtMost !== undefined
      ? `≤ ${slowerByAtMost}× slower`
      : maxBytes !== undefined
        ? `≤ ${maxBytes} B`
        : maxRatio !== undefined
          ? `≤ ${maxRatio}× of it`
          : '—';

/** The set each record came from, with its runs. */
const sets = [
  ...(runs > 0 ? [{ ...thisSet, label: 'this set' }] : []),
  ...earlier.map((set) => ({ ...set, label: set.file })),
];
const all = sets.flatMap((set) => set.runs);
const clock = (iso) => iso.slice(11, 16);
const spans = sets.map(
  (set) =>
    `${set.runs.length} ${set.label === 'this set' ? 'now' : `from ${set.label}`} (${set.started.slice(0, 10)} ${clock(set.started)}–${clock(set.ended)} UTC, Node ${set.node}${set.machine === undefined ? '' : `, ${set.machine}`})`,
);
const loads = all.flat().map((r) => r.load);
console.log(
  `${all.length} runs of \`node bench/run.mjs${filter ? ` ${filter}` : ''}\`: ${spans.join(' + ')}; ` +
    `load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} when the comparisons were taken.\n`,
);

/** One row per comparison that every run measured: its cells, and the figures shown in them. */
function rows(runSet) {
  const out = [];
  for (const first of runSet[0] ?? []) {
    const same = runSet.map((records) =>
      records.find((r) => r.suite === first.suite && r.case === first.case && r.vs === first.vs),
    );
    if (same.some((r) => r === undefined)) continue;
    const judged = Object.values(first.goal).some((t) => t !== undefined);
    const met = same.filter((r) => r.ok).length;
    const memory = first.kind === 'memory';
    // A memory goal against another case shows the share of it; other memory goals the bytes.
    const share = memory && first.goal.maxRatio !== undefined;
    const figures = same.map((r) => (share ? r.share : memory ? r.bytes : r.ratio));
    const show = (v) => (share ? `${v.toFixed(2)}×` : memory ? `${v.toFixed(0)} B` : times(v));
    const n = runSet.length;
    out.push({
      suite: first.suite.split(':')[0],
      comparison: `${first.suite.slice(first.suite.indexOf(':') + 1).trim()}: ${first.case} vs ${first.vs}`,
      goal: goalText(first.goal),
      median: show(median(figures)),
      range: `${show(Math.min(...figures))} – ${show(Math.max(...figures))}`,
      // Met in four runs of five (the issue's rule) or the same share of more runs; bold when not.
      verdict: judged ? (met >= Math.ceil(0.8 * n) ? `${met} of ${n}` : `**${met} of ${n}**`) : '—',
    });
  }
  return out;
}

console.log(
  `| suite | comparison | goal | median of ${all.length} | range | goal met |\n|---|---|---|---|---|---|`,
);
for (const row of rows(all))
  console.log(
    `| ${row.suite} | ${row.comparison} | ${row.goal} | ${row.median} | ${row.range} | ${row.verdict} |`,
  );

const sides = sideTimes(all);
if (sides.length > 0) {
  const n = all.filter((records) => records.some((r) => r.ns !== undefined)).length;
  console.log(
    `\nTime per operation of each side, in the ${n} run(s) that recorded it (the ratios above are of these; another machine may run both sides at other speeds):\n`,
  );
  console.log(`| suite | side | median of ${n} | range |\n|---|---|---|---|`);
  for (const side of sides) console.log(`| ${side.suite} | ${side.name} | ${side.median} | ${side.range} |`);
}

if (against !== undefined) {
  // The same comparisons, judged against a printed table: is this set's median inside its range?
  const printed = printedTable(readFileSync(against, 'utf8'));
  if (printed === undefined) throw new Error(`${against} has no table of the shape this script prints`);
  const mine = rows(runs > 0 ? fresh : all);
  let outside = 0;
  let compared = 0;
  console.log(
    `\nAgainst ${against} (the table of ${printed.heading}): this set's median of ${runs > 0 ? runs : all.length} in the printed range?\n`,
  );
  console.log(
    '| suite | comparison | printed median | printed range | this set | inside |\n|---|---|---|---|---|---|',
  );
  for (const row of mine) {
    const then = printed.rows.get(`${row.suite} | ${row.comparison}`);
    if (then === undefined) continue;
    compared++;
    const inside = within(row.median, then.range);
    if (inside === false) outside++;
    const mark = inside === undefined ? 'not comparable' : inside ? 'yes' : '**no**';
    console.log(
      `| ${row.suite} | ${row.comparison} | ${then.median} | ${then.range} | ${row.median} | ${mark} |`,
    );
  }
  if (compared === 0) throw new Error(`${against}'s table has none of this set's comparisons`);
  console.log(
    outside === 0
      ? '\nEvery comparison both tables hold is inside the printed range.'
      : `\n${outside} comparison(s) outside the printed range.`,
  );
  // A figure a rerun cannot reproduce within its printed range is a defect: the run says so by failing.
  if (outside > 0) process.exitCode = 1;
}

/** Each side of the time comparisons, once, with the median and range of its time per operation. */
function sideTimes(runSet) {
  const recorded = runSet.filter((records) => records.some((r) => r.ns !== undefined));
  const perSide = new Map();
  for (const records of recorded) {
    const seen = new Set();
    for (const r of records) {
      if (r.ns === undefined) continue;
      for (const [name, ns] of [
        [r.case, r.ns.case],
        [r.vs, r.ns.vs],
      ]) {
        const key = `${r.suite}\u0000${name}`;
        if (seen.has(key)) continue; // a side in several comparisons of one run: counted once
        seen.add(key);
        const entry = perSide.get(key) ?? { suite: r.suite, name, times: [] };
        entry.times.push(ns);
        perSide.set(key, entry);
      }
    }
  }
  const show = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(2)} µs`);
  return [...perSide.values()]
    .filter((entry) => entry.times.length === recorded.length)
    .map(({ suite, name, times }) => ({
      suite: suite.split(':')[0],
      name: `${suite.slice(suite.indexOf(':') + 1).trim()}: ${name}`,
      median: show(median(times)),
      range: `${show(Math.min(...times))} – ${show(Math.max(...times))}`,
    }));
}

/**
 * The first markdown table in `text` with this script's header, and the `###` heading above it:
 * its rows by "suite | comparison".
 */
function printedTable(text) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) =>
    /^\| suite \| comparison \| goal \| median of \d+ \| range \|/.test(line),
  );
  if (start === -1) return undefined;
  const heading =
    lines
      .slice(0, start)
      .reverse()
      .find((line) => line.startsWith('#')) ?? 'the file';
  const table = new Map();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells.length !== 6) continue;
    const [suite, comparison, , median, range] = cells;
    table.set(`${suite} | ${comparison}`, { median, range });
  }
  return { heading: heading.replace(/^#+\s*/, ''), rows: table };
}

/** A printed figure ("3.44× slower", "5.50× faster", "592 B", "0.24×") as a number on one scale. */
function figure(text) {
  const match = /^([\d.]+)(× slower|× faster| B|×)$/.exec(text.trim());
  if (match === null) return undefined;
  const value = Number(match[1]);
  return match[2] === '× slower' ? 1 / value : value;
}

/** Whether the printed `median` lies inside the printed `range` (both ends included), as printed. */
function within(median, range) {
  const [low, high] = range.split(' – ').map(figure);
  const value = figure(median);
  if (low === undefined || high === undefined || value === undefined) return undefined;
  return value >= Math.min(low, high) && value <= Math.max(low, high);
}
