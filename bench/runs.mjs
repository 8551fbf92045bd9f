// Runs `bench/run.mjs` several times and prints one markdown table of the goals: the median of the runs,
// the lowest and highest run, and in how many runs each goal was met. Before each run it waits until
// the one-minute load average is below the limit (a figure taken on a busy machine is not comparable).
// Usage: node bench/runs.mjs [--runs 5] [--max-load 2] [filter]   (after `npm run build`)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const [value] = args.splice(at, 2).slice(1);
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new Error(`${name} wants a positive number, got ${value}`);
  return number;
};
const runs = option('--runs', 5);
const maxLoad = option('--max-load', 2);
const filter = args[0] ?? '';

/** Waits (polling every 5 s, at most 10 minutes) until the one-minute load average is below `maxLoad`. */
function waitForQuiet() {
  for (let waited = 0; loadavg()[0] >= maxLoad; waited += 5) {
    if (waited >= 600) throw new Error(`load average still ${loadavg()[0].toFixed(2)} after 10 minutes`);
    execFileSync('sleep', ['5']);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
const all = [];
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
    all.push(JSON.parse(readFileSync(file, 'utf8')));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

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

const loads = all.flat().map((r) => r.load);
console.log(
  `${runs} runs of \`node bench/run.mjs${filter ? ` ${filter}` : ''}\`, ${started.toISOString().slice(0, 16)}–${new Date().toISOString().slice(11, 16)} UTC, ` +
    `Node ${process.versions.node}; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} when the comparisons were taken.\n`,
);
console.log(
  `| suite | comparison | goal | median of ${runs} | range | goal met |\n|---|---|---|---|---|---|`,
);
for (const first of all[0] ?? []) {
  const same = all.map((records) =>
    records.find((r) => r.suite === first.suite && r.case === first.case && r.vs === first.vs),
  );
  if (same.some((r) => r === undefined)) continue;
  const judged = Object.values(first.goal).some((t) => t !== undefined);
  const met = same.filter((r) => r.ok).length;
  const memory = first.kind === 'memory';
  // A memory goal against another case shows the share of it; other memory goals the bytes.
  const share = memory && first.goal.maxRatio !== undefined;
  const values = same.map((r) => (share ? r.share : memory ? r.bytes : r.ratio));
  const show = (v) => (share ? `${v.toFixed(2)}×` : memory ? `${v.toFixed(0)} B` : times(v));
  const range = `${show(Math.min(...values))} – ${show(Math.max(...values))}`;
  const verdict = judged ? (met >= runs - 1 ? `${met} of ${runs}` : `**${met} of ${runs}**`) : '—';
  console.log(
    `| ${first.suite.split(':')[0]} | ${first.suite.slice(first.suite.indexOf(':') + 1).trim()}: ${first.case} vs ${first.vs} | ${goalText(first.goal)} | ${show(median(values))} | ${range} | ${verdict} |`,
  );
}
