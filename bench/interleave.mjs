// The driver side of an interleaved run (see bench/README.md, "Interleaved windows"): every case of a
// time suite runs in a process of its own (bench/windows.ts), the processes warm up one after another,
// then take turns in short timed windows, so the two sides of a comparison see the same machine.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} wants a positive number`);
  return value;
};
/** Rounds per suite and the window each case gets per round: 20 × 25 ms = 500 ms of timed calls per case. */
export const ROUNDS = number('PARLEY_BENCH_ROUNDS', 20);
export const WINDOW_MS = number('PARLEY_BENCH_WINDOW_MS', 25);
/** Processes per case: a process can stay slower for its whole life, which one process per case cannot show. */
export const PROCESSES = number('PARLEY_BENCH_PROCESSES', 3);
/** How long a worker may take to answer a window (or `end`) before the run fails, naming the case. */
export const DEADLINE_MS = number('PARLEY_BENCH_DEADLINE_MS', 60_000);
/** How long a case may take to set up and warm up (a case may start servers) before the run fails. */
export const READY_MS = number('PARLEY_BENCH_READY_MS', 300_000);

/** One case's process: `ask` sends a command line and resolves with the next `@bench` answer. */
function startWorker(args, options, label) {
  const child = spawn(process.execPath, args, { ...options, stdio: ['pipe', 'pipe', 'inherit'] });
  const answers = [];
  let waiting;
  let gone;
  const fail = (error) => {
    gone ??= error;
    if (waiting) waiting.reject(gone);
    waiting = undefined;
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('@bench ')) return; // a case's own output is not protocol
    const message = JSON.parse(line.slice(7));
    if (waiting) {
      waiting.resolve(message);
      waiting = undefined;
    } else answers.push(message);
  });
  child.on('error', (error) => fail(new Error(`case ${label}: ${error.message}`)));
  child.on('exit', (code, signal) =>
    fail(new Error(`case ${label} exited (${signal ?? `code ${code}`}) before it answered`)),
  );
  child.stdin.on('error', () => {}); // a dead worker's pipe; its exit is the error reported
  /** Sends `command` (none: waits for the ready line) and waits at most `ms` for the answer. */
  const ask = (command, ms) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting = undefined;
        reject(new Error(`case ${label} did not answer "${command ?? 'ready'}" within ${ms / 1000} s`));
      }, ms);
      const settle = (f) => (value) => {
        clearTimeout(timer);
        f(value);
      };
      if (answers.length > 0) return settle(resolve)(answers.shift());
      if (gone) return settle(reject)(gone);
      waiting = { resolve: settle(resolve), reject: settle(reject) };
      if (command !== undefined) child.stdin.write(`${command}\n`);
    });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { ask, kill };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs the cases of one time suite interleaved, each in `processes` processes of its own
 * (`PROCESSES` by default). A case is its name, or `{ name, case, args, cwd }`: the case `case` of
 * the suite, run with other node arguments or in another folder (bench/ab.mjs runs a case of two
 * builds so), reported as `name`.
 * Resolves with, per case name, its totals (`avgNs`, `cpuNs` over all windows; `p50Ns`, `p99Ns`,
 * `batch`, the median of its processes') and its `rounds`: one `{calls, wallNs, cpuNs}` per round
 * and process, at index `round * processes + process` for every case alike.
 */
export async function runInterleaved(
  args,
  options,
  suite,
  cases,
  { alternate = false, processes = PROCESSES } = {},
) {
  const specs = cases.map((c) => (typeof c === 'string' ? { name: c, case: c } : c));
  // By case, each case's processes one after another; or, with `alternate`, the first process of
  // every case, then the second of every case…, so no case's processes always follow their own.
  const slots = alternate
    ? Array.from({ length: processes }, (_, k) => specs.map((spec) => ({ ...spec, k }))).flat()
    : specs.flatMap((spec) => Array.from({ length: processes }, (_, k) => ({ ...spec, k })));
  try {
    // Warm-ups one after another, so they do not compete for the cores.
    for (const slot of slots) {
      const env = { ...options.env, PARLEY_BENCH_SUITE: suite, PARLEY_BENCH_CASE: slot.case };
      slot.worker = startWorker(
        slot.args ?? args,
        { ...options, cwd: slot.cwd ?? options.cwd, env },
        `"${suite} / ${slot.name}"${processes > 1 ? ` (process ${slot.k + 1})` : ''}`,
      );
      await slot.worker.ask(undefined, READY_MS);
    }
    // One untimed round first: a process that sat idle while the others warmed up may have
    // garbage or compilation of its warm-up still pending.
    for (const slot of slots) await slot.worker.ask(`warm ${WINDOW_MS}`, DEADLINE_MS);
    const names = specs.map((spec) => spec.name);
    const rounds = new Map(names.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // The order rotates every round, so no process always runs first (or right after another).
      for (let i = 0; i < slots.length; i++) {
        const { name, k, worker } = slots[(round + i) % slots.length];
        rounds.get(name)[round * processes + k] = await worker.ask(`run ${WINDOW_MS}`, DEADLINE_MS);
      }
    }
    const ends = new Map(names.map((name) => [name, []]));
    for (const slot of slots) ends.get(slot.name).push(await slot.worker.ask('end', DEADLINE_MS));
    const results = {};
    for (const name of names) {
      const all = rounds.get(name);
      const total = (key) => all.reduce((t, r) => t + r[key], 0) / all.reduce((t, r) => t + r.calls, 0);
      const mid = (key) => median(ends.get(name).map((e) => e[key]));
      results[name] = {
        avgNs: total('wallNs'),
        p50Ns: mid('p50Ns'),
        p99Ns: mid('p99Ns'),
        cpuNs: total('cpuNs'),
        batch: mid('batch'),
        rounds: all,
      };
    }
    return results;
  } finally {
    for (const slot of slots) slot.worker?.kill();
  }
}

/**
 * How many times faster `a` is than `b` (below 1: slower), from interleaved results: the median over
 * rounds of each round's ratio (wall-clock `wallNs`, or `cpuNs`), and the ratio of the summed times.
 */
export function roundRatios(a, b, key = 'wallNs') {
  const perCall = (r) => r[key] / r.calls;
  const each = a.rounds.map((ra, i) => perCall(b.rounds[i]) / perCall(ra));
  const sum = (rounds) => rounds.reduce((t, r) => t + r[key], 0) / rounds.reduce((t, r) => t + r.calls, 0);
  return { median: median(each), ofSums: sum(b.rounds) / sum(a.rounds), each };
}
