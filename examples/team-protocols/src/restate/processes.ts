// The app processes of the Restate run and the address the server reaches them at: two replicas
// (child node processes running app.ts) behind one TCP front that sends each new connection to the
// first replica that accepts it, as a load balancer with health checks would.
import { type ChildProcess, fork } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const APP = fileURLToPath(new URL('./app.ts', import.meta.url));

export interface Replica {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  /** Kills the process (SIGKILL: no goodbye, as a crash or an OOM kill) and waits until it is gone. */
  kill(): Promise<void>;
}

/** Starts app.ts on `port` and waits until it listens. */
export async function startReplica(name: string, port: number, effectLog: string): Promise<Replica> {
  const child: ChildProcess = fork(APP, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PORT: String(port), EFFECT_LOG: effectLog },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then(() => reject(new Error(`app ${name} (port ${port}) exited before it listened`)));
  });
  child.disconnect();
  return {
    name,
    port,
    pid: child.pid as number,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A TCP front on `port`: each connection goes to the first of `backends` that accepts it. */
export async function startFront(
  port: number,
  backends: readonly number[],
): Promise<{ close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    const attempt = (i: number): void => {
      const backend = backends[i];
      if (backend === undefined) {
        client.destroy();
        return;
      }
      const upstream = connect(backend, '127.0.0.1');
      let connected = false;
      upstream.on('error', () => (connected ? client.destroy() : attempt(i + 1)));
      upstream.once('connect', () => {
        connected = true;
        open.add(upstream);
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
