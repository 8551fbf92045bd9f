// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/postgres, compiled and run (the ones that need a server against a
// real PostgreSQL); each console.log of an example is an assertion here.
import { PGlite } from '@electric-sql/pglite';
import { isParleyError } from '@parley/core';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  DEFAULT_SCHEMA,
  MAX_KEY_BYTES,
  migratePostgresStore,
  POSTGRES_STORE_ERROR_CODES,
  type PGliteLike,
  type PgQueryable,
  type PostgresResyncReason,
  type PostgresStore,
  PostgresStoreError,
  type PostgresStoreErrorCode,
  type PostgresStoreEvents,
  type PostgresStoreOptions,
  postgresStoreMigration,
  STORE_FORMAT,
} from '../src/index.js';
import { type PostgresServer, startPostgres } from './server.js';

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server.stop();
});

describe('errors.ts examples', () => {
  it('POSTGRES_STORE_ERROR_CODES', () => {
    expect(POSTGRES_STORE_ERROR_CODES.includes('serialization_failure')).toBe(true);
  });

  it('PostgresStoreErrorCode', () => {
    const code: PostgresStoreErrorCode = 'statement_timeout';
    expect(POSTGRES_STORE_ERROR_CODES).toContain(code);
  });

  it('PostgresStoreError', () => {
    const err = new PostgresStoreError('connection_lost', 'Postgres is unreachable', {
      details: { sent: false },
    });
    expect([isParleyError(err, 'connection_lost'), err.details.sent]).toEqual([true, false]);
  });

  it('MAX_KEY_BYTES', () => {
    expect(MAX_KEY_BYTES).toBe(2048);
  });
});

describe('driver.ts examples', () => {
  it('PgQueryable', async () => {
    const fake: PgQueryable = { query: async () => ({ rows: [] }) };
    expect(await fake.query('SELECT 1')).toEqual({ rows: [] });
  });

  it('PGliteLike', async () => {
    const db: PGliteLike = new PGlite();
    await (db as PGlite).close();
    expect(db.closed).toBe(true);
  });
});

describe('migration.ts examples', () => {
  it('STORE_FORMAT and DEFAULT_SCHEMA', () => {
    expect([STORE_FORMAT, DEFAULT_SCHEMA]).toEqual([1, 'parley']);
  });

  it('postgresStoreMigration', () => {
    const sql = postgresStoreMigration('billing_bot');
    expect(sql.includes('CREATE TABLE IF NOT EXISTS "billing_bot".store_entries')).toBe(true);
  });
});

describe('watch.ts examples', () => {
  it('PostgresResyncReason', () => {
    const reason: PostgresResyncReason = 'reconnected';
    expect(reason).toBe('reconnected');
  });
});

describe('store.ts examples', () => {
  it('PostgresStoreOptions', () => {
    function optionsFor(pool: Pool): PostgresStoreOptions {
      return { db: pool, schema: 'billing_bot', sweepIntervalMs: 30_000 };
    }
    expect(optionsFor(server.pool()).schema).toBe('billing_bot');
  });

  it('PostgresStoreEvents', () => {
    const event: PostgresStoreEvents['swept'] = { count: 120 };
    expect(event.count).toBe(120);
  });

  it('PostgresStore', async () => {
    const lines: string[] = [];
    function logOutages(store: PostgresStore): void {
      store.on('connection', ({ state }) => lines.push(`listener ${state}`));
    }
    const store = createPostgresStore({ db: server.pool() });
    logOutages(store);
    await store.close();
    expect(lines).toEqual([]);
  });

  it('migratePostgresStore', async () => {
    const db = new PGlite();
    await migratePostgresStore(db, { schema: 'billing_bot' });
    await migratePostgresStore(db, { schema: 'billing_bot' }); // again: nothing changes
    expect((await db.query('SELECT count(*)::int AS n FROM billing_bot.store_entries')).rows).toEqual([
      { n: 0 },
    ]);
    await db.close();
  });

  it('createPostgresStore', async () => {
    const logged: unknown[] = [];
    async function remember(pool: Pool): Promise<void> {
      const store = createPostgresStore({ db: pool, schema: 'billing_bot' });
      const version = await store.set('confirm:abc', { state: 'pending' }, { ttlMs: 60_000 });
      const won = await store.compareAndSet('confirm:abc', version, { state: 'approved' });
      logged.push(won.ok, await store.get('confirm:abc'));
      await store.close(); // the pool stays open
    }
    await remember(server.pool());
    expect(logged).toEqual([true, { state: 'approved' }]);
  });
});
