// A real PostgreSQL server per test file: initdb into a temp dir, loopback only, fsync off (the
// machine never crashes under a test, only the server does, and the WAL it replays holds every
// commit), run as the `postgres` user when the tests run as root, since postgres refuses root.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresServer {
  readonly port: number;
  /** The temp dir holding the data directory and the socket. */
  readonly dir: string;
  /** A new pool on this server (no idle timers), ended by `endPools()` or `stop()`. */
  pool(options?: pg.PoolConfig): pg.Pool;
  /** Ends every pool made so far. */
  endPools(): Promise<void>;
  /** Stops the server as a crash would (immediate shutdown) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and waits until it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN !== undefined) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.find((v) => existsSync(join(base, v, 'bin', 'postgres')));
  if (found === undefined) {
    throw new Error(
      '@parley/postgres tests need a real PostgreSQL: no /usr/lib/postgresql/*/bin/postgres. Install it ' +
        '(apt-get install postgresql) or set PG_BIN to the directory holding initdb and postgres.',
    );
  }
  return join(base, found, 'bin');
}

/** The `postgres` user's ids when this process is root (postgres refuses to run as root). */
function owner(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'parley-pg-'));
  const user = owner();
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    { stdio: 'pipe', cwd: dir, ...user },
  );
  const port = await freePort();
  const pools = new Set<pg.Pool>();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const args = [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=60',
    ];
    const proc = spawn(join(bin, 'postgres'), args, { stdio: 'ignore', cwd: dir, ...user });
    child = proc;
    const deadline = Date.now() + 20_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) throw new Error(`postgres exited with ${proc.exitCode} on port ${port}`);
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections on ${port} within 20 s`);
      await pause(50);
    }
  }

  async function kill(): Promise<void> {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    // SIGQUIT is postgres's immediate shutdown: every backend is dropped at once and no checkpoint
    // is written, so the next start runs crash recovery from the WAL, as after a power cut.
    proc.kill('SIGQUIT');
    await exited;
    await waitGone(port);
  }

  async function endPools(): Promise<void> {
    const all = [...pools];
    pools.clear();
    await Promise.all(all.map((pool) => pool.end().catch(() => {})));
  }

  await start();
  return {
    port,
    dir,
    pool(options = {}) {
      const pool = new pg.Pool({
        host: '127.0.0.1',
        port,
        user: 'postgres',
        database: 'postgres',
        idleTimeoutMillis: 0,
        ...options,
      });
      pool.on('error', () => {}); // expected while a test kills the server
      pools.add(pool);
      return pool;
    },
    endPools,
    kill,
    start,
    async stop() {
      const killed = kill(); // the signal goes out before the first await, even from an exit handler
      await endPools();
      await killed;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns true, failing after `timeoutMs` (no fixed sleeps in tests). */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(10);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function accepts(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function waitGone(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (await accepts(port)) {
    if (Date.now() > deadline) throw new Error(`postgres on ${port} did not stop`);
    await pause(20);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
