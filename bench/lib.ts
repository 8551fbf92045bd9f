// The benchmark contract. A file in bench/cases/ calls `suite()` once per question it answers;
// `bench/run.mjs` runs every case of every suite in its own fresh Node process (cases that share
// a process change each other's numbers through JIT and GC state) and prints ratios.
import { do_not_optimize, measure } from 'mitata';
import { serveWindows } from './windows.js';

/** Builds the operation to time; setup runs once, outside the measurement. An operation returning a promise is awaited. */
export type TimeCase = () => (() => unknown) | Promise<() => unknown>;
/**
 * Builds one live instance whose retained heap is measured (returned value is kept alive). In a
 * suite with `settle: true` it returns a promise, awaited before the next instance is built, and
 * what it resolves to is kept.
 */
export type MemoryCase = () => unknown;

/** A comparison `npm run bench` prints; with no threshold it is a reference, shown with `·` and not judged. */
export interface Goal {
  /** The case being judged. */
  readonly case: string;
  /** The case it is compared with. */
  readonly vs: string;
  /** `case` must be at least this many times faster than `vs`. */
  readonly fasterBy?: number;
  /** `case` may be at most this many times slower than `vs`. */
  readonly slowerByAtMost?: number;
  /** For memory suites: `case` retains at most this many bytes per instance. */
  readonly maxBytes?: number;
  /** For memory suites: `case` retains at most this fraction of what `vs` retains per instance. */
  readonly maxRatio?: number;
}

export interface SuiteDefinition {
  readonly kind?: 'time' | 'memory';
  /** For memory suites: instances created per measurement; 100 000 by default. */
  readonly instances?: number;
  /**
   * For memory suites: each instance is a promise (a run, say), awaited before the next one starts;
   * the heap it leaves behind once settled is measured, after as many warm-up instances as a tenth
   * of `instances` (at most 500) so compiled code and caches filled once are not counted.
   */
  readonly settle?: boolean;
  /**
   * For time suites whose cases start servers or processes of their own (the scale-out suites): each
   * case is timed alone, in one process, one case after another, and not interleaved. Interleaving
   * keeps every case's processes alive at once (three per case), so their servers and replicas
   * would share the cores with the case being timed.
   */
  readonly alone?: boolean;
  /**
   * For an async case timed alone: how long it is timed after its warm-up, in ms (500 by default).
   * A scale-out operation takes about 10 ms, so 500 ms times only about 50 of them.
   */
  readonly timedMs?: number;
  readonly cases: Readonly<Record<string, TimeCase | MemoryCase>>;
  readonly goals?: readonly Goal[];
}

const suites = new Map<string, SuiteDefinition>();

/** Declares a suite of cases; in a worker process, runs the one case asked for. */
export function suite(name: string, definition: SuiteDefinition): void {
  suites.set(name, definition);
  queueMicrotask(() => void dispatch());
}

let dispatched = false;
async function dispatch(): Promise<void> {
  if (dispatched) return;
  dispatched = true;
  const mode = process.env.PARLEY_BENCH_MODE;
  if (mode === 'list') {
    const list = [...suites].map(([name, d]) => ({
      name,
      kind: d.kind ?? 'time',
      alone: d.alone === true,
      cases: Object.keys(d.cases),
      goals: d.goals ?? [],
    }));
    process.stdout.write(`${JSON.stringify(list)}\n`);
    return;
  }
  const suiteName = process.env.PARLEY_BENCH_SUITE;
  const caseName = process.env.PARLEY_BENCH_CASE;
  const definition = suiteName === undefined ? undefined : suites.get(suiteName);
  const make = caseName === undefined ? undefined : definition?.cases[caseName];
  if (definition === undefined || make === undefined) {
    process.stderr.write(
      `Run benchmarks through "npm run bench" (unknown suite/case ${suiteName}/${caseName})\n`,
    );
    process.exitCode = 2;
    return;
  }
  if ((definition.kind ?? 'time') === 'memory') {
    const count = definition.instances ?? 100_000;
    const bytes =
      definition.settle === true
        ? await measureSettled(make as MemoryCase, count)
        : measureRetained(make as MemoryCase, count);
    process.stdout.write(`${JSON.stringify({ bytes })}\n`);
    return;
  }
  const op = await (make as TimeCase)();
  // An operation that returns a promise is measured until it settles, not just its synchronous part.
  const first = op();
  const isAsync = typeof (first as { then?: unknown } | null)?.then === 'function';
  await first;
  if (mode === 'worker') {
    // run.mjs's interleaved run: warm up here, then time only in the windows it hands out.
    await serveWindows(op, isAsync, await batchSize(op, isAsync));
    return;
  }
  if (!isAsync) {
    const stats = await measure(() => do_not_optimize(op()), { min_cpu_time: 500e6 });
    process.stdout.write(`${JSON.stringify({ avgNs: stats.avg, p50Ns: stats.p50, p99Ns: stats.p99 })}\n`);
    return;
  }
  // mitata keeps its samples in a 2^20-slot array allocated up front (8 MB of pointers); every full
  // collection walks it, so the async cases that allocate most (and collect most often) paid for it
  // with stalls of several ms that doubled their mean. Async operations are timed here instead, in
  // batches of about 100 µs whose times go into a small array of unboxed doubles, and without the
  // full collection mitata forces first: after a forced gc(), cases that keep a few hundred
  // objects alive kept promoting them, the heap grew through the whole run and each young-generation
  // collection took ~5 ms instead of ~0.5 ms, so they ran up to 2.5× slower than in a process left
  // to collect on its own (see bench/README.md).
  const stats = await measureAsync(op, (definition.timedMs ?? 500) * 1e6);
  process.stdout.write(`${JSON.stringify(stats)}\n`);
}

/** Mean, median and 99th percentile per call of an async `op`, from batches timed for `minNs` in all. */
async function measureAsync(
  op: () => unknown,
  minNs: number,
): Promise<{ avgNs: number; p50Ns: number; p99Ns: number; cpuNs: number; batch: number }> {
  const batch = await batchSize(op, true);
  const perCall: number[] = [];
  let totalNs = 0;
  // CPU time of the process over the same calls: on a loaded machine the process waits for a core
  // and the wall-clock mean grows with the load, while CPU time per call barely moves.
  const cpuStart = process.cpuUsage();
  while (totalNs < minNs || perCall.length < 12) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) do_not_optimize(await op());
    const ns = (performance.now() - start) * 1e6;
    totalNs += ns;
    perCall.push(ns / batch);
  }
  const cpu = process.cpuUsage(cpuStart);
  const calls = perCall.length * batch;
  const sorted = [...perCall].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.floor(q * (sorted.length - 1))] as number;
  const cpuNs = ((cpu.user + cpu.system) * 1e3) / calls;
  return { avgNs: totalNs / calls, p50Ns: at(0.5), p99Ns: at(0.99), cpuNs, batch };
}

/** Calls a case makes before it is timed, at the least, unless they take longer than 5 s (see `batchSize`). */
const WARM_UP_CALLS = 5_000;
/** The least time a case is warmed up for; `PARLEY_BENCH_WARM_UP_MS` lowers it (the bench's own test). */
const WARM_UP_MS = Number(process.env.PARLEY_BENCH_WARM_UP_MS ?? 300);

/**
 * How many calls of `op` take about 100 µs. Calls run for 300 ms and at least {@link WARM_UP_CALLS}
 * times (or 5 s, for a slow operation) first, so the JIT has compiled the hot paths (20 ms of calls
 * left a case at a fraction of its speed; 300 ms alone left a confirm round trip, which runs a few
 * thousand times in 300 ms on a loaded machine, 3–4× slower than after 5 000 calls, while its small
 * baseline was long warm), then for 20 ms to count.
 */
async function batchSize(op: () => unknown, isAsync: boolean): Promise<number> {
  // A sync op is not awaited: an `await` per call would warm up and count a microtask each.
  const call = async (): Promise<void> => {
    if (isAsync) await op();
    else for (let i = 0; i < 100; i++) do_not_optimize(op());
  };
  const per = isAsync ? 1 : 100;
  const warmUp = performance.now();
  const warming = (calls: number): boolean => {
    const ms = performance.now() - warmUp;
    return ms < WARM_UP_MS || (calls < WARM_UP_CALLS && ms < 5_000);
  };
  for (let calls = 0; warming(calls); calls += per) await call();
  const start = performance.now();
  let calls = 0;
  while (performance.now() - start < 20) {
    await call();
    calls += per;
  }
  const msPerCall = (performance.now() - start) / calls;
  return Math.max(1, Math.round(0.1 / msPerCall));
}

function measureRetained(make: MemoryCase, count: number): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('Memory suites need node --expose-gc');
  make(); // warm up code paths so compiled code is not counted
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = new Array(count);
  for (let i = 0; i < count; i++) kept[i] = make();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  do_not_optimize(kept);
  return (after - before) / count;
}

/**
 * Memory left behind per instance of an async `make`, each awaited before the next (see `settle`):
 * the V8 heap plus the memory of ArrayBuffers, which lives outside it (a `Uint8Array` from
 * `TextEncoder`, as LangGraph's checkpointer keeps, is not in `heapUsed`).
 */
async function measureSettled(make: MemoryCase, count: number): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('Memory suites need node --expose-gc');
  const used = (): number => {
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const warmUp = Math.min(500, Math.ceil(count / 10));
  for (let i = 0; i < warmUp; i++) await make();
  gc();
  gc();
  const before = used();
  const kept: unknown[] = new Array(count);
  for (let i = 0; i < count; i++) kept[i] = await make();
  gc();
  gc();
  const after = used();
  do_not_optimize(kept);
  return (after - before) / count;
}

/**
 * In a case's process, exits as soon as the result line is written: for cases whose servers and
 * connections would keep the process alive after it printed its result.
 */
export function exitAfterResult(): void {
  if (process.env.PARLEY_BENCH_MODE !== 'case') return;
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array): boolean => {
    const written = write(chunk); // synchronous on a pipe
    if (String(chunk).startsWith('{')) process.exit(0);
    return written;
  }) as typeof process.stdout.write;
}
