// Two processes on one database settle the same pending confirmations: each is settled once.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { type PostgresServer, startPostgres } from './server.js';

const COUNT = 300;
let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server.stop();
});

interface Child {
  readonly ready: Promise<void>;
  readonly result: Promise<string[]>;
  go(): void;
}

function child(me: string, schema: string): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'race-child.ts')], {
    env: { ...process.env, PG_PORT: String(server.port), SCHEMA: schema, COUNT: String(COUNT), ME: me },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  proc.stderr.on('data', (chunk) => (err += String(chunk)));
  proc.stdout.on('data', (chunk) => {
    out += String(chunk);
    if (out.includes('READY\n')) onReady();
  });
  const result = new Promise<string[]>((resolve, reject) => {
    proc.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) reject(new Error(`child ${me} exited ${code}: ${err}`));
      else resolve(JSON.parse(line.slice('RESULT '.length)) as string[]);
    });
  });
  return { ready, result, go: () => proc.stdin.end('go\n') };
}

it('[PG-01] lets two processes race over the same pending confirmations and settles each exactly once', async () => {
  const schema = 'race';
  const store = createPostgresStore({ db: server.pool(), schema });
  for (let i = 0; i < COUNT; i++) await store.set(`confirm:${i}`, { state: 'pending' }, { ttlMs: 600_000 });
  const children = [child('a', schema), child('b', schema)];
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.go();
  const [a, b] = await Promise.all(children.map((c) => c.result));
  const wins = [...(a ?? []), ...(b ?? [])];
  expect(wins).toHaveLength(COUNT);
  expect(new Set(wins).size).toBe(COUNT);
  for await (const entry of store.list('confirm:')) {
    const { by } = entry.value as { by: string };
    expect((by === 'a' ? a : b)?.includes(entry.key)).toBe(true);
  }
  await store.close();
  console.log(`race: process a won ${a?.length}, process b won ${b?.length} of ${COUNT}`);
}, 120_000);
