// Soak: 100 000 pending records with TTLs (four rounds of 25 000) on a real PostgreSQL. Every
// record is absent the moment its TTL passes, before any sweep; the bounded sweep then deletes them
// all, and once the indexes reached their working size no round makes the table any larger.
import { createManualClock } from '@parley/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { type PostgresServer, startPostgres } from './server.js';

const ROUND = 25_000;
const ROUNDS = 4;
const WAVE = 250;
const SWEEP_LIMIT = 5_000;

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server.stop();
});

it(`[PG-08] expires and sweeps ${ROUNDS * ROUND} pending records with TTLs without growth`, {
  timeout: 300_000,
}, async () => {
  const started = performance.now();
  const pool = server.pool({ max: 8 });
  const clock = createManualClock();
  const store = createPostgresStore({
    db: pool,
    schema: 'soak',
    clock,
    sweepIntervalMs: 0,
    sweepLimit: SWEEP_LIMIT,
  });
  const swept: number[] = [];
  store.on('swept', ({ count }) => swept.push(count));
  const sizes: number[] = [];
  const rows = async (): Promise<number> =>
    (await pool.query('SELECT count(*)::int AS n FROM soak.store_entries')).rows[0].n as number;

  for (let round = 0; round < ROUNDS; round++) {
    for (let first = 0; first < ROUND; first += WAVE) {
      await Promise.all(
        Array.from({ length: WAVE }, (_, k) => {
          const i = first + k;
          return store.set(`pending:${round}:${i}`, { state: 'pending', i }, { ttlMs: 1_000 + (i % 60_000) });
        }),
      );
    }
    expect(await rows()).toBe(ROUND);
    clock.advance(61_000);
    // Expired on read before any sweep: nothing listed, nothing read.
    let listed = 0;
    for await (const _ of store.list('pending:')) listed++;
    expect(listed).toBe(0);
    expect(await store.get(`pending:${round}:${ROUND - 1}`)).toBeUndefined();
    expect(await rows()).toBe(ROUND);
    swept.length = 0;
    while ((await store.sweep()) > 0) {}
    expect(swept.reduce((a, b) => a + b, 0)).toBe(ROUND);
    expect(Math.max(...swept)).toBeLessThanOrEqual(SWEEP_LIMIT);
    expect(await rows()).toBe(0);
    await pool.query('VACUUM soak.store_entries'); // what autovacuum does on its own schedule
    sizes.push(
      Number((await pool.query("SELECT pg_total_relation_size('soak.store_entries') AS b")).rows[0].b),
    );
  }
  // The indexes reach their working size after the first reuse (btree pages emptied by one VACUUM
  // are recycled only after the next, so the third round may still add a few pages); from then on
  // each round fits in the same space. Growth without bound would add a whole round's size (2×).
  const [, second, third, fourth] = sizes as [number, number, number, number];
  expect(third).toBeLessThanOrEqual(second * 1.25);
  expect(fourth).toBeLessThanOrEqual(third * 1.1);
  await store.close();
  console.log(
    `soak: ${ROUNDS * ROUND} records in ${Math.round(performance.now() - started)} ms; table + indexes after each round: ${sizes.join(', ')} B`,
  );
});
