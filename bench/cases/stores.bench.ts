// The Store over a server, per operation, on one machine in one run: @parley/postgres on a real
// PostgreSQL and on PGlite against @parley/redis on a real redis-server (each case starts its own
// server on a loopback port and stops it when its process exits). Reference ratios, not goals: the
// numbers are round trips to a local server, so they measure the servers as much as the stores.
import { rmSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Store } from '@parley/core';
import { createPostgresStore } from '@parley/postgres';
import { createRedisStore } from '@parley/redis';
import { startPostgres } from '../../packages/stores/postgres/test/server.js';
import { startRedis } from '../../packages/stores/redis/test/helpers.js';
import { exitAfterResult, suite } from '../lib.js';

// The servers and their connections would keep a case's process alive after it printed its result.
exitAfterResult();

async function postgres(): Promise<Store> {
  const server = await startPostgres();
  process.once('exit', () => {
    void server.kill(); // sends the signal at once; the rest cannot run in an exit handler
    rmSync(server.dir, { recursive: true, force: true });
  });
  return createPostgresStore({ db: server.pool({ max: 4 }), schema: 'bench', sweepIntervalMs: 0 });
}

async function pglite(): Promise<Store> {
  return createPostgresStore({ db: new PGlite(), schema: 'bench', sweepIntervalMs: 0 });
}

async function redis(): Promise<Store> {
  const server = await startRedis();
  process.once('exit', () => void server.stop());
  return createRedisStore({ redis: server.client(), prefix: 'bench:' });
}

const VALUE = { state: 'pending', chat: 'g1', action: 'sql.delete', deadlineAt: 1_700_000_000_000 };

/** Reads one pending record. */
function get(make: () => Promise<Store>) {
  return async () => {
    const store = await make();
    await store.set('confirm:abc', VALUE, { ttlMs: 3_600_000 });
    return () => store.get('confirm:abc');
  };
}

/** Settles one pending record by compare-and-set over the version it read (the winning path). */
function compareAndSet(make: () => Promise<Store>) {
  return async () => {
    const store = await make();
    let version = await store.set('confirm:abc', VALUE, { ttlMs: 3_600_000 });
    return async () => {
      const result = await store.compareAndSet('confirm:abc', version, VALUE, { ttlMs: 3_600_000 });
      if (!result.ok) throw new Error('lost a race with nobody');
      version = result.version;
    };
  };
}

suite('stores: get one pending record', {
  cases: { 'postgres get': get(postgres), 'pglite get': get(pglite), 'redis get': get(redis) },
  goals: [
    { case: 'postgres get', vs: 'redis get' },
    { case: 'pglite get', vs: 'redis get' },
  ],
});

suite('stores: settle one pending record by compare-and-set', {
  cases: {
    'postgres compareAndSet': compareAndSet(postgres),
    'pglite compareAndSet': compareAndSet(pglite),
    'redis compareAndSet': compareAndSet(redis),
  },
  goals: [
    { case: 'postgres compareAndSet', vs: 'redis compareAndSet' },
    { case: 'pglite compareAndSet', vs: 'redis compareAndSet' },
  ],
});
