import { PGlite } from '@electric-sql/pglite';
import type { StoreChange } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore, type PgQueryable } from '../src/index.js';
import { live } from './conformance.js';
import { type PostgresServer, startPostgres, until } from './server.js';

let server: PostgresServer;
let n = 0;
const opened: PostgresStore[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await server.stop();
});

/** Two replicas: two stores on two separate pools, one schema. */
function replicas(): [PostgresStore, PostgresStore] {
  const schema = `app_${++n}`;
  const pair: [PostgresStore, PostgresStore] = [
    createPostgresStore({ db: server.pool(), schema }),
    createPostgresStore({ db: server.pool(), schema }),
  ];
  opened.push(...pair);
  return pair;
}

describe('two replicas on one database', () => {
  it('lets one replica hear what the other writes, with the version written', async () => {
    const [a, b] = replicas();
    const heard: StoreChange[] = [];
    await live(a, 'confirm:', (change) => heard.push(change));
    const version = await b.set('confirm:s1', { state: 'pending' });
    await b.set('other:x', 1);
    await b.delete('confirm:s1');
    await until(() => heard.length === 2, 5_000, 'the changes on replica A');
    expect(heard).toEqual([
      { key: 'confirm:s1', version, kind: 'set' },
      { key: 'confirm:s1', version: null, kind: 'delete' },
    ]);
  });

  it('[PG-01] lets exactly one of two pools settle the same confirmation by compare-and-set', async () => {
    const [a, b] = replicas();
    for (let round = 0; round < 50; round++) {
      const key = `confirm:${round}`;
      const version = await a.set(key, { state: 'pending' }, { ttlMs: 60_000 });
      const results = await Promise.all([
        a.compareAndSet(key, version, { state: 'approved', by: 'a' }),
        b.compareAndSet(key, version, { state: 'cancelled', by: 'b' }),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const stored = (await b.get(key)) as { by: string };
      expect(stored.by).toBe(results[0]?.ok ? 'a' : 'b');
      const loser = results.find((r) => !r.ok);
      expect(loser?.version).toBe((await a.getEntry(key))?.version);
    }
  });

  it('[PG-01] lets exactly one of two racing creators take an absent key', async () => {
    const [a, b] = replicas();
    for (let round = 0; round < 30; round++) {
      const results = await Promise.all([
        a.compareAndSet(`lock:${round}`, null, 'a'),
        b.compareAndSet(`lock:${round}`, null, 'b'),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    }
  });

  it('gives the later of two racing writers of one key the higher version', async () => {
    const [a, b] = replicas();
    const heard: StoreChange[] = [];
    await live(a, 'k', (change) => heard.push(change));
    const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).set('k', i)));
    await until(() => heard.length === 20, 5_000, 'every write');
    // Notifications arrive in commit order; versions grow in that order.
    const versions = heard.map((c) => c.version as number);
    expect([...versions].sort((x, y) => x - y)).toEqual(versions);
    expect(new Set(writes).size).toBe(20);
    expect((await b.getEntry('k'))?.version).toBe(Math.max(...writes));
  });

  it('runs queries and LISTEN on one pg Client when given one', async () => {
    const pool = server.pool();
    const client = await pool.connect();
    try {
      const store = createPostgresStore({ db: client as PgQueryable, schema: `client_${++n}` });
      const other = createPostgresStore({ db: server.pool(), schema: store.schema });
      opened.push(store, other);
      const heard: string[] = [];
      const off = await live(store, '', (change) => heard.push(change.key));
      await other.set('from-other', 1);
      await store.set('from-self', 1);
      await until(() => heard.length === 2, 5_000, 'both changes');
      expect(heard.sort()).toEqual(['from-other', 'from-self']);
      off();
      await store.close();
      expect(await other.get('from-self')).toBe(1);
    } finally {
      client.release();
    }
  });
});

describe('replicas on one PGlite', () => {
  it('lets two stores on one embedded database follow each other', async () => {
    const db = new PGlite();
    const a = createPostgresStore({ db, schema: 'embedded' });
    const b = createPostgresStore({ db, schema: 'embedded' });
    const heard: StoreChange[] = [];
    await live(a, '', (change) => heard.push(change));
    const version = await b.set('k', 1);
    await until(() => heard.length === 1, 5_000, 'the change');
    expect(heard).toEqual([{ key: 'k', version, kind: 'set' }]);
    await a.close();
    await b.close();
    await db.close();
  });
});
