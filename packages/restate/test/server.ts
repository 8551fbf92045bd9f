// A real Restate server per test file: the binary from @restatedev/restate-server's platform
// package, loopback ports picked free, its own temp base dir (kept across restart()).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from './http.js';

export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  readonly baseDir: string;
  /** Registers (or re-registers, `force`) the service endpoint at `uri` through the admin API. */
  register(uri: string): Promise<void>;
  /** Kills the server (SIGKILL) and starts it again on the same ports and base dir. */
  restart(): Promise<void>;
  /** The JSON value of state `key` of object `service`/`objectKey`, read with the admin SQL API (undefined when unset). */
  state(service: string, objectKey: string, key: string): Promise<unknown>;
  /** What the server printed, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** A PEM Ed25519 private key: the server signs every request to the endpoint with it. */
  readonly identityPrivateKeyPem?: string;
}

/** The restate-server binary of this platform, or a clear error naming the package to install. */
export function restateBinary(): string {
  const pkg = `@restatedev/restate-server-${platform()}-${arch()}`;
  try {
    return createRequire(import.meta.url).resolve(`${pkg}/bin/restate-server`);
  } catch {
    throw new Error(
      `@parley/restate tests need the Restate server binary: ${pkg} is not installed. ` +
        'Run `npm ci` at the repository root (it comes with the devDependency @restatedev/restate-server).',
    );
  }
}

export async function startRestate(options: StartOptions = {}): Promise<RestateServer> {
  const bin = restateBinary();
  const baseDir = mkdtempSync(join(tmpdir(), 'parley-restate-'));
  const [ingress, admin, node, pgsql] = await freePorts(4);
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

  async function start(): Promise<void> {
    const args = ['--base-dir', baseDir, '--no-logo', '--listen-mode', 'tcp', '--node-name', 'parley-test'];
    const proc = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    const ports = `ingress ${ingress}, admin ${admin}, node ${node}`;
    await waitFor(`the Restate server to become healthy (${ports})`, 30_000, async () => {
      if (proc.exitCode !== null) {
        throw new Error(`restate-server exited with ${proc.exitCode} (${ports}); a port in use?\n${output}`);
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

  await start();
  return {
    ingressUrl,
    adminUrl,
    baseDir,
    async register(uri) {
      await waitFor(`the admin API to register the endpoint ${uri}`, 30_000, async () => {
        const { status, text } = await http('POST', `${adminUrl}/deployments`, { uri, force: true });
        if (status >= 200 && status < 300) return true;
        if (status === 503) return false; // the admin is not ready yet
        // The endpoint refused discovery (a wrong identity key, a broken endpoint): no retry makes it pass.
        throw new Error(`registering ${uri} failed (${status}): ${text}`);
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
      if (answer.status !== 200) throw new Error(`the admin query answered ${answer.status}: ${answer.text}`);
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

/**
 * Polls `check` until it returns true; fails after `ms` naming what it waited for. The pause between
 * polls is a real timer because the other side is a real server process.
 */
export async function waitFor(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await check()) return;
    if (performance.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function reachable(url: string): Promise<boolean> {
  try {
    return (await http('GET', url)).status === 200;
  } catch {
    return false;
  }
}

/** `count` distinct loopback ports free right now. */
export async function freePorts(count: number): Promise<number[]> {
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
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
