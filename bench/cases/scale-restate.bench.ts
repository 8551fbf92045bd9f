// Scale-out on Restate (issue 36): decisions per second with 100 000 confirmations pending in
// @parley/restate's confirmations object on one local restate-server, served by 1, 2 or 3 endpoint
// replicas (bench/scale-restate-endpoint.ts: node:cluster workers on one port, so the server's
// HTTP/2 connections are spread over them). The pending confirmations are requested through the
// ingress before the timing starts; one operation answers 100 of them ("确认" from the requester,
// 100 ingress calls at once) and each call returns only once the decision is committed in the
// server's log, so decisions per second = 100 / the time printed per operation. The CPU time printed
// is the driver's alone. Every second the driver prints restate-server's CPU use and the replicas'
// (from /proc, in % of one core), and after the prompts each replica's heap after a full collection
// and how many of the server's connections it serves. Run only when selected (`npm run bench --
// 'on Restate'`; the Redis suite's `scale-out` leaves it out, as it takes 15–25 minutes) and when the
// restate-server binary is installed; each case starts its own server.
import { execFileSync, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { InboundResult } from '@parley/restate';
import { freeLoopbackPorts, restateServerBinary, startRestateServer } from '@parley/restate/testing';
import { post } from '../ingress.js';
import { exitAfterResult, suite } from '../lib.js';
import { cpuSeconds } from '../proc-cpu.js';
import type { EndpointCommand, EndpointReport } from '../scale-restate-endpoint.js';

exitAfterResult();

const PENDING = Number(process.env.PARLEY_SCALE_PENDING ?? 100_000);
const PER_OP = 100;
/** Ingress calls in flight while the pending confirmations are requested. */
const PROMPTING = 128;
const script = fileURLToPath(new URL('../scale-restate-endpoint.ts', import.meta.url));
const agent = new Agent({ keepAlive: true, maxSockets: PROMPTING });

/** The process ids below `pid` (children and theirs), from `ps`. */
function descendants(pid: number): { pid: number; comm: string }[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([p, pp, comm]) => ({ pid: Number(p), ppid: Number(pp), comm: comm ?? '' }));
  const found: { pid: number; comm: string }[] = [];
  const walk = (parent: number): void => {
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.push(row);
      walk(row.pid);
    }
  };
  walk(pid);
  return found;
}

async function endpoints(count: number): Promise<() => Promise<unknown>> {
  const server = await startRestateServer({ readyWithinMs: 60_000 });
  const [port] = (await freeLoopbackPorts(1)) as [number];
  const primary = fork(script, [], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    env: { ...process.env, SCALE_PORT: String(port), SCALE_WORKERS: String(count) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  process.once('exit', () => {
    primary.kill('SIGKILL');
    void server.stop();
    rmSync(server.baseDir, { recursive: true, force: true });
  });
  let waiting: ((report: EndpointReport) => void) | undefined;
  const ask = (command: EndpointCommand): Promise<EndpointReport> =>
    new Promise((resolve) => {
      waiting = resolve;
      primary.send(command);
    });
  await new Promise<void>((resolve, reject) => {
    primary.once('exit', (code) =>
      reject(new Error(`the endpoint replicas exited with ${code} before they were ready`)),
    );
    primary.on('message', (report: EndpointReport) => {
      if (report.type === 'ready') return resolve();
      const done = waiting;
      waiting = undefined;
      done?.(report);
    });
  });
  await server.register(`http://127.0.0.1:${port}`);

  const at = (i: number): string =>
    `${server.ingressUrl}/confirmations/${encodeURIComponent(`feishu:c${i}`)}`;
  const began = performance.now();
  let next = 0;
  const prompter = async (): Promise<void> => {
    for (let i = next++; i < PENDING; i = next++) {
      const request = {
        sessionKey: `feishu:c${i}`,
        action: { name: 'drop', args: { t: `c${i}` } },
        summary: `DROP c${i}`,
        requester: 'ou_a',
      };
      await post(agent, `${at(i)}/request`, { id: 'c1', request });
    }
  };
  await Promise.all(Array.from({ length: PROMPTING }, prompter));
  const seconds = (performance.now() - began) / 1000;
  process.stderr.write(
    `    ${PENDING} requested in ${seconds.toFixed(0)} s (${(PENDING / seconds).toFixed(0)}/s)\n`,
  );
  const heap = await ask({ type: 'heap' });
  if (heap.type === 'heap') {
    for (const [i, worker] of heap.workers.entries()) {
      process.stderr.write(
        `    replica ${i}: heap ${(worker.bytes / 1024 / 1024).toFixed(1)} MB after a full collection, serving ${worker.connections} of the server's connections\n`,
      );
    }
  }
  const serverPid = descendants(process.pid).find((p) => p.comm === 'restate-server')?.pid;
  const replicaPids = [primary.pid as number, ...descendants(primary.pid as number).map((p) => p.pid)];
  let decided = 0;
  watchCpu(serverPid, replicaPids, () => decided);

  let answered = 0;
  return async () => {
    if (primary.exitCode !== null) throw new Error('the endpoint replicas stopped (see above)');
    const from = answered;
    answered += PER_OP;
    if (answered > PENDING) throw new Error('ran out of pending confirmations: raise PARLEY_SCALE_PENDING');
    const verdicts = await Promise.all(
      Array.from({ length: PER_OP }, (_, k) =>
        post<InboundResult>(agent, `${at(from + k)}/reply`, { text: '确认', senderId: 'ou_a' }),
      ),
    );
    if (verdicts.some((v) => v.verdict?.kind !== 'settle'))
      throw new Error('a reply did not decide its confirmation');
    decided += PER_OP;
  };
}

/** Prints every second restate-server's and the replicas' CPU use (% of one core) and the decisions per second. */
function watchCpu(
  serverPid: number | undefined,
  replicaPids: readonly number[],
  decided: () => number,
): void {
  const sample = () => ({
    at: performance.now(),
    server: serverPid === undefined ? 0 : cpuSeconds(serverPid),
    replicas: replicaPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    decided: decided(),
  });
  let last = sample();
  const timer = setInterval(() => {
    const now = sample();
    const seconds = (now.at - last.at) / 1000;
    if (now.decided > last.decided) {
      const pct = (a: number, b: number): string => (((a - b) / seconds) * 100).toFixed(0);
      process.stderr.write(
        `    restate-server ${pct(now.server, last.server)} % of a core, replicas ${pct(now.replicas, last.replicas)} %, ${((now.decided - last.decided) / seconds).toFixed(0)} decisions/s\n`,
      );
    }
    last = now;
  }, 1_000);
  timer.unref();
}

function installed(): boolean {
  try {
    restateServerBinary();
    return true;
  } catch {
    return false;
  }
}

// Listed only when selected; a case process is asked for it by name.
const filter = process.env.PARLEY_BENCH_FILTER ?? '';
const selected =
  filter.includes('on Restate') || (process.env.PARLEY_BENCH_SUITE ?? '').endsWith('pending on Restate');
if (selected && installed()) {
  suite(`scale-out: ${PER_OP} decisions per operation with ${PENDING} pending on Restate`, {
    alone: true, // each case's servers and replicas run with nothing else timed beside them
    // an operation took 117–295 ms here (2 December): 500 ms (the default) timed about two, 10 s times 34–85
    timedMs: 10_000,
    cases: {
      '1 endpoint replica': () => endpoints(1),
      '2 endpoint replicas': () => endpoints(2),
      '3 endpoint replicas': () => endpoints(3),
    },
    // References, not goals: the issue asks for the figures and where the store saturates.
    goals: [
      { case: '2 endpoint replicas', vs: '1 endpoint replica' },
      { case: '3 endpoint replicas', vs: '1 endpoint replica' },
    ],
  });
}
