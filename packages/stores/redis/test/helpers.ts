// A real redis-server per test file: loopback only, no persistence, its own temp dir.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreEntry } from '@parley/core';
import { Redis, type RedisOptions } from 'ioredis';

const BIN = process.env.REDIS_SERVER ?? 'redis-server';

export interface RedisServer {
  readonly port: number;
  /** A new client on this server, closed by `disconnectClients()` or `stop()`. */
  client(options?: RedisOptions): Redis;
  /** Disconnects every client made so far (after each test: no reconnect timer outlives it). */
  disconnectClients(): void;
  /** Kills the server (SIGKILL: nothing is flushed) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and waits for PING. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function assertRedisInstalled(): void {
  try {
    execFileSync(BIN, ['--version'], { stdio: 'pipe' });
  } catch {
    throw new Error(
      `@parley/redis tests need a real Redis: "${BIN}" was not found. Install it (apt-get install redis-server, ` +
        'brew install redis) or set REDIS_SERVER to its path.',
    );
  }
}

export interface StartOptions {
  /** Append-only file fsynced on every write (`--appendonly yes --appendfsync always`), so data survives SIGKILL. */
  readonly persistent?: boolean;
}

export async function startRedis(options: StartOptions = {}): Promise<RedisServer> {
  assertRedisInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'parley-redis-'));
  const port = await freePort();
  const clients = new Set<Redis>();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const proc = spawn(
      BIN,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...(options.persistent === true
          ? ['--appendonly', 'yes', '--appendfsync', 'always']
          : ['--appendonly', 'no']),
        '--dir',
        dir,
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    const deadline = Date.now() + 30_000;
    while (!(await ping(port))) {
      if (proc.exitCode !== null)
        throw new Error(`redis-server exited with ${proc.exitCode} on port ${port}`);
      if (Date.now() > deadline)
        throw new Error(`redis-server did not answer PING on port ${port} within 10 s`);
      await pause(20);
    }
  }

  async function kill(): Promise<void> {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    port,
    client(options = {}) {
      const client = new Redis({ host: '127.0.0.1', port, lazyConnect: false, ...options });
      client.on('error', () => {}); // expected while a test kills the server
      clients.add(client);
      return client;
    },
    disconnectClients() {
      for (const client of clients) client.disconnect();
      clients.clear();
    },
    kill,
    start,
    async stop() {
      for (const client of clients) client.disconnect();
      clients.clear();
      await kill();
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

export async function collect(iterable: AsyncIterable<StoreEntry>): Promise<StoreEntry[]> {
  const out: StoreEntry[] = [];
  for await (const entry of iterable) out.push(entry);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}
