// `list` reads a key range on the primary key index (`key text COLLATE "C"`), never the whole table.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PgQueryable } from '../src/index.js';
import { type PostgresServer, startPostgres } from './server.js';

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server.stop();
});

interface Recorded {
  readonly text: string;
  readonly values: unknown[];
}

/** Lists `prefix` through a store on `db` and returns the plan of each statement `list` ran. */
async function listPlans(db: PgQueryable & { exec?: (sql: string) => Promise<unknown> }, schema: string) {
  const recorded: Recorded[] = [];
  const recording: PgQueryable = {
    async query(text, values) {
      if (values !== undefined) recorded.push({ text, values });
      return db.query(text, values);
    },
  };
  const store = createPostgresStore({ db: recording, schema, migrate: false, listPageSize: 100 });
  const keys: string[] = [];
  for await (const entry of store.list('p:12')) keys.push(entry.key);
  await store.close();
  const plans: string[] = [];
  for (const { text, values } of recorded) {
    const result = await db.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
    plans.push(JSON.stringify(result.rows));
  }
  return { keys, plans };
}

const FILL = (schema: string): string => `
  INSERT INTO ${schema}.store_entries (key, value, version, expires_at)
  SELECT 'p:' || i, '1', nextval('${schema}.store_versions'), NULL FROM generate_series(1, 20000) AS i;
  ANALYZE ${schema}.store_entries;`;

describe('list by prefix', () => {
  it('[PG-07] reads only the prefix range through the primary key index on PostgreSQL', async () => {
    const pool = server.pool();
    const store = createPostgresStore({ db: pool, schema: 'plan' });
    await store.set('warm', 1); // runs the migration
    await pool.query(FILL('plan'));
    const { keys, plans } = await listPlans(pool, 'plan');
    expect(keys).toHaveLength(1 + 10 + 100 + 1000); // p:12, p:12x, p:12xx, p:12xxx
    expect(plans.length).toBeGreaterThan(1); // several pages: the keyset pages use the index too
    for (const plan of plans) {
      expect(plan).toContain('store_entries_pkey');
      expect(plan).not.toContain('Seq Scan');
    }
    await store.close();
  });

  it('[PG-07] reads only the prefix range through the primary key index on PGlite', async () => {
    const db = new PGlite();
    const store = createPostgresStore({ db, schema: 'plan' });
    await store.set('warm', 1);
    await db.exec(FILL('plan'));
    const { keys, plans } = await listPlans(db, 'plan');
    expect(keys).toHaveLength(1111);
    for (const plan of plans) {
      expect(plan).toContain('store_entries_pkey');
      expect(plan).not.toContain('Seq Scan');
    }
    await store.close();
    await db.close();
  });
});
