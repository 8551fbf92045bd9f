/// <reference types="node" />
/**
 * A real Restate server for tests, examples and local runs: the `restate-server` binary that npm
 * installs with `@restatedev/restate-server`, started on free loopback ports with its own temp
 * base dir. Nothing here is a mock; it is the engine itself, on one machine.
 *
 * @packageDocumentation
 * @module @parley/restate/testing
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, systemClock } from '@parley/core';
import { ParleyRestateError } from './errors.js';
import { http } from './internal/http.js';

/**
 * A running `restate-server`: its ingress and admin URLs, and what a test or a demo does with it.
 *
 * @example
 * ```ts
 * import type { LocalRestateServer } from '@parley/restate/testing';
 *
 * const ingressOf = (server: LocalRestateServer): string => server.ingressUrl;
 * ```
 */
export interface LocalRestateServer {
  /** Where services are called, e.g. `http://127.0.0.1:41234`. */
  readonly ingressUrl: string;
  /** The admin API (deployments, invocations, SQL over state). */
  readonly adminUrl: string;
  /** The server's data directory; kept across {@link LocalRestateServer.restart}, removed by `stop`. */
  readonly baseDir: string;
  /** Registers (again, `force`) the service endpoint at `uri`; throws `register_failed` when the endpoint refuses discovery. */
  register(uri: string): Promise<void>;
  /** Kills the server (SIGKILL) and starts it again on the same ports and base dir: a crash of the engine. */
  restart(): Promise<void>;
  /** The JSON value of state `key` of object `service`/`objectKey`, read with the admin SQL API (undefined when unset). */
  state(service: string, objectKey: string, key: string): Promise<unknown>;
  /** The last 20 000 characters the server printed, for failure messages. */
  log(): string;
  /** Kills the server and removes its base dir. */
  stop(): Promise<void>;
}

/**
 * Options of {@link startRestateServer}.
 *
 * @example
 * ```ts
 * import type { LocalRestateOptions } from '@parley/restate/testing';
 *
 * const options: LocalRestateOptions = { readyWithinMs: 60_000 };
 * ```
 */
export interface LocalRestateOptions {
  /** A PEM Ed25519 private key: the server signs every request to the endpoint with it (request identity). */
  readonly identityPrivateKeyPem?: string;
  /** How long the server may take to become healthy, and the admin API to register an endpoint (30 s). */
  readonly readyWithinMs?: number;
  /** The clock the readiness polls wait on (the system clock). */
  readonly clock?: Clock;
}

/**
 * Finds this platform's `restate-server` binary (from `@restatedev/restate-server-<platform>-<arch>`),
 * or throws `server_missing` naming the package to install.
 *
 * @example
 * ```ts
 * import { restateServerBinary } from '@parley/restate/testing';
 *
 * console.log(restateServerBinary().endsWith('restate-server')); // true
 * ```
 */
export function restateServerBinary(): string {
  const pkg = `@restatedev/restate-server-${platform()}-${arch()}`;
  try {
    return createRequire(import.meta.url).resolve(`${pkg}/bin/restate-server`);
  } catch {
    throw new ParleyRestateError(
      'server_missing',
      `The Restate server binary is not installed: ${pkg} is missing. Install @restatedev/restate-server (npm ci at the repository root does).`,
    );
  }
}

/**
 * Starts a real `restate-server` on free loopback ports with a fresh temp base dir, and waits
 * until its admin API and ingress answer; throws `server_missing` without the binary and
 * `server_failed` when it exits or is not healthy within `readyWithinMs`.
 *
 * @example
 * ```ts
 * import { startRestateServer } from '@parley/restate/testing';
 *
 * const server = await startRestateServer();
 * console.log(server.ingressUrl.startsWith('http://127.0.0.1:')); // true
 * await server.stop();
 * ```
 */
export async function startRestateServer(options: LocalRestateOptions = {}): Promise<LocalRestateServer> {
  const bin = restateServerBinary();
  const clock = options.clock ?? systemClock;
  const within = options.readyWithinMs ?? 30_000;
  const baseDir = mkdtempSync(join(tmpdir(), 'parley-restate-'));
  const [ingress, admin, node, pgsql] = await freeLoopbackPorts(4);
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const adminUrl = `http://127.0.0.1:${admin}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${pgsql}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}/`,
    RESTATE_DISABLE_TELEMETRY: 'true',
    RESTATE_LOG_FILTER: 'warn',
  };
  if (options.identityPrivateKeyPem !== undefined) {
    const keyFile = join(baseDir, 'identity.pem');
    writeFileSync(keyFile, options.identityPrivateKeyPem);
    env.RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE = keyFile;
  }
  let child: ChildProcess | undefined;
  let output = '';
  const ports = `ingress ${ingress}, admin ${admin}, node ${node}`;

  async function start(): Promise<void> {
    const args = ['--base-dir', baseDir, '--no-logo', '--listen-mode', 'tcp', '--node-name', 'parley-local'];
    const proc = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    await poll(clock, `the Restate server to become healthy (${ports})`, within, async () => {
      if (proc.exitCode !== null) {
        throw new ParleyRestateError(
          'server_failed',
          `restate-server exited with ${proc.exitCode} (${ports}); a port in use?\n${output}`,
        );
      }
      const [a, i] = await Promise.all([
        reachable(`${adminUrl}/health`),
        reachable(`${ingressUrl}/restate/health`),
      ]);
      return a && i;
    });
  }

  async function kill(): Promise<void> {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGKILL');
    await gone;
  }

  try {
    await start();
  } catch (error) {
    await kill();
    rmSync(baseDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ingressUrl,
    adminUrl,
    baseDir,
    async register(uri) {
      await poll(clock, `the admin API to register the endpoint ${uri}`, within, async () => {
        const { status, text } = await http('POST', `${adminUrl}/deployments`, { uri, force: true });
        if (status >= 200 && status < 300) return true;
        if (status === 503) return false; // the admin is not ready yet
        // The endpoint refused discovery (a wrong identity key, a broken endpoint): no retry makes it pass.
        throw new ParleyRestateError('register_failed', `registering ${uri} failed (${status}): ${text}`);
      });
    },
    async restart() {
      await kill();
      await start();
    },
    async state(service, objectKey, key) {
      const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
      const query = `SELECT value_utf8 FROM state WHERE service_name = ${quote(service)} AND service_key = ${quote(objectKey)} AND key = ${quote(key)}`;
      const answer = await http('POST', `${adminUrl}/query`, { query }, { accept: 'application/json' });
      if (answer.status !== 200)
        throw new ParleyRestateError(
          'server_failed',
          `the admin query answered ${answer.status}: ${answer.text}`,
        );
      const row = (JSON.parse(answer.text) as { rows: { value_utf8: string }[] }).rows[0];
      return row === undefined ? undefined : JSON.parse(row.value_utf8);
    },
    log: () => output,
    async stop() {
      await kill();
      if (existsSync(baseDir)) rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every 25 ms on `clock` until it returns true; `server_failed` after `ms`, naming what it waited for. */
async function poll(clock: Clock, what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = clock.now() + ms;
  for (;;) {
    if (await check()) return;
    if (clock.now() > deadline)
      throw new ParleyRestateError('server_failed', `Timed out after ${ms} ms waiting for ${what}`);
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 25));
  }
}

async function reachable(url: string): Promise<boolean> {
  try {
    return (await http('GET', url)).status === 200;
  } catch {
    return false;
  }
}

/**
 * `count` distinct loopback ports free right now (for the server, and for service endpoints).
 *
 * @example
 * ```ts
 * import { freeLoopbackPorts } from '@parley/restate/testing';
 *
 * const [port] = await freeLoopbackPorts(1);
 * console.log(typeof port); // number
 * ```
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
