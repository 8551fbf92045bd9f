// The worker side of an interleaved run (see bench/README.md, "Interleaved windows"). A case's
// process sets up and warms up its operation, says it is ready, then runs the operation only
// while it holds a window that run.mjs hands out over stdin, so the cases of a suite are timed
// in turns, each seeing the same machine weather as the others.
import { createInterface } from 'node:readline';
import { do_not_optimize } from 'mitata';

/** What a worker answers for one window: calls made, their wall-clock and CPU time. */
export interface WindowAnswer {
  readonly calls: number;
  readonly wallNs: number;
  readonly cpuNs: number;
}

/** A line to run.mjs; other output of a case (a library's log, say) is not read as protocol. */
export const say = (message: object): void => {
  process.stdout.write(`@bench ${JSON.stringify(message)}\n`);
};

/**
 * Runs `op` in batches of `batch` calls for one window of at least `windowNs` (whole batches),
 * keeping each batch's time per call in `perCall`. A sync op is not awaited (an `await` per call
 * would time a microtask each); every result goes through `do_not_optimize`.
 */
async function runWindow(
  op: () => unknown,
  isAsync: boolean,
  batch: number,
  windowNs: number,
  perCall: number[],
): Promise<WindowAnswer> {
  const cpuStart = process.cpuUsage();
  let wallNs = 0;
  let calls = 0;
  do {
    const start = performance.now();
    if (isAsync) for (let i = 0; i < batch; i++) do_not_optimize(await op());
    else for (let i = 0; i < batch; i++) do_not_optimize(op());
    const ns = (performance.now() - start) * 1e6;
    wallNs += ns;
    calls += batch;
    perCall.push(ns / batch);
  } while (wallNs < windowNs);
  const cpu = process.cpuUsage(cpuStart);
  return { calls, wallNs, cpuNs: (cpu.user + cpu.system) * 1e3 };
}

/**
 * Serves windows until run.mjs says `end`: `run <ms>` runs one window and answers with a
 * {@link WindowAnswer} (`warm <ms>` the same, left out of the totals); `end` answers with the whole case's mean, median and 99th percentile per
 * call (over batches) and CPU per call, then exits the process (a case's servers or connections
 * would keep it alive).
 */
export async function serveWindows(op: () => unknown, isAsync: boolean, batch: number): Promise<void> {
  const perCall: number[] = [];
  let wallNs = 0;
  let cpuNs = 0;
  let calls = 0;
  say({ ready: true, batch });
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, argument] = line.trim().split(' ');
    if (command === 'warm') {
      // An untimed window: run like the others, counted in nothing.
      say(await runWindow(op, isAsync, batch, Number(argument) * 1e6, []));
    } else if (command === 'run') {
      const answer = await runWindow(op, isAsync, batch, Number(argument) * 1e6, perCall);
      wallNs += answer.wallNs;
      cpuNs += answer.cpuNs;
      calls += answer.calls;
      say(answer);
    } else if (command === 'end') {
      const sorted = [...perCall].sort((a, b) => a - b);
      const at = (q: number): number => sorted[Math.floor(q * (sorted.length - 1))] as number;
      say({ avgNs: wallNs / calls, p50Ns: at(0.5), p99Ns: at(0.99), cpuNs: cpuNs / calls, batch });
      process.exit(0);
    } else {
      throw new Error(`bench worker: unknown command ${JSON.stringify(line)}`);
    }
  }
  // stdin closed without `end`: run.mjs is gone, and nothing else will ask this process for anything.
  process.exit(1);
}
