// The endpoint replicas of the Restate scale-out benchmark (cases/scale-restate.bench.ts): a primary
// process that forks SCALE_WORKERS workers with node:cluster, each serving @parley/restate's
// confirmations object over HTTP/2 on the one port SCALE_PORT. The Restate server knows one
// deployment URL (it does not spread one deployment over several endpoints); the cluster's primary
// hands the server's connections to the workers in turn, as a layer-4 load balancer in front of
// replicas would. The confirmations' state lives in the server, so a worker holds only the
// invocations it is running.
import cluster from 'node:cluster';
import { createServer } from 'node:http2';
import { defineConfirmations } from '@parley/restate';
import * as restate from '@restatedev/restate-sdk';

/** What the driver sends to the primary, and what it answers. */
export type EndpointCommand = { readonly type: 'heap' } | { readonly type: 'stop' };
export type EndpointReport =
  | { readonly type: 'ready' }
  | {
      readonly type: 'heap';
      readonly workers: readonly { readonly bytes: number; readonly connections: number }[];
    };
type WorkerReport =
  | { readonly type: 'listening' }
  | { readonly type: 'heap'; readonly bytes: number; readonly connections: number };

const port = Number(process.env.SCALE_PORT);
const count = Number(process.env.SCALE_WORKERS ?? 1);

if (cluster.isPrimary) {
  const workers = Array.from({ length: count }, () => cluster.fork());
  let stopping = false;
  // A replica that dies is not replaced: the figures would be of fewer replicas than printed.
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    process.stderr.write(`endpoint replica ${worker.id} died (${signal ?? code}): stopping the case\n`);
    process.exit(1);
  });
  let listening = 0;
  let heaps: { bytes: number; connections: number }[] = [];
  for (const worker of workers) {
    worker.on('message', (report: WorkerReport) => {
      if (report.type === 'listening' && ++listening === count) process.send?.({ type: 'ready' });
      if (report.type === 'heap') {
        heaps.push({ bytes: report.bytes, connections: report.connections });
        if (heaps.length === count) {
          process.send?.({ type: 'heap', workers: heaps } satisfies EndpointReport);
          heaps = [];
        }
      }
    });
  }
  process.on('message', (command: EndpointCommand) => {
    if (command.type === 'stop') {
      stopping = true;
      for (const worker of workers) worker.kill('SIGKILL');
      process.exit(0);
    }
    for (const worker of workers) worker.send(command);
  });
  process.on('disconnect', () => {
    stopping = true;
    for (const worker of workers) worker.kill('SIGKILL');
    process.exit(0);
  });
} else {
  const handler = restate.createEndpointHandler({
    services: [defineConfirmations({ name: 'confirmations', send: async () => true, timeoutMs: 3_600_000 })],
    logger: () => {},
  });
  const server = createServer(handler);
  let connections = 0;
  server.on('session', () => connections++);
  server.listen(port, '127.0.0.1', () => process.send?.({ type: 'listening' } satisfies WorkerReport));
  process.on('message', (command: EndpointCommand) => {
    if (command.type !== 'heap') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    process.send?.({
      type: 'heap',
      bytes: process.memoryUsage().heapUsed,
      connections,
    } satisfies WorkerReport);
  });
}
