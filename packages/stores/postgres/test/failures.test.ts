import { PGlite } from '@electric-sql/pglite';
import { isParleyError } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  MAX_KEY_BYTES,
  migratePostgresStore,
  type PostgresStore,
  type PostgresStoreEvents,
} from '../src/index.js';
import { type PostgresServer, startPostgres, until } from './server.js';

let server: PostgresServer;
let n = 0;
const opened: PostgresStore[] = [];

beforeAll(async () => {
  server = await startPostgres();
  await server.pool().query('CREATE ROLE reader LOGIN');
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await server.stop();
});

function store(options: Partial<Parameters<typeof createPostgresStore>[0]> = {}): PostgresStore {
  const made = createPostgresStore({ db: server.pool(), schema: `f_${++n}`, ...options });
  opened.push(made);
  return made;
}

/** Holds the row lock of `key` in `schema` on its own connection until `release()`. */
async function lockRow(schema: string, key: string, update = false): Promise<{ commit(): Promise<void> }> {
  const admin = await server.pool().connect();
  await admin.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
  await admin.query(
    update
      ? `UPDATE ${schema}.store_entries SET value = value WHERE key = $1`
      : `SELECT 1 FROM ${schema}.store_entries WHERE key = $1 FOR UPDATE`,
    [key],
  );
  return {
    async commit() {
      await admin.query('COMMIT');
      admin.release();
    },
  };
}

async function lockWaiters(): Promise<number> {
  const result = await server
    .pool()
    .query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
  return result.rows[0].n as number;
}

describe('statements the server cancels or refuses', () => {
  it('[PG-04] fails a write with statement_timeout when the server cancels it, writing nothing', async () => {
    const s = store({ db: server.pool({ statement_timeout: 200 }) });
    const version = await s.set('k', 'pending');
    const lock = await lockRow(s.schema, 'k');
    await expect(s.compareAndSet('k', version, 'approved')).rejects.toMatchObject({
      code: 'statement_timeout',
      details: { key: 'k', sqlstate: '57014' },
    });
    await lock.commit();
    expect(await s.getEntry('k')).toMatchObject({ value: 'pending', version });
  });

  it('[PG-05] runs a write again after a serialization failure, so it settles exactly once', async () => {
    const db = server.pool({ options: '-c default_transaction_isolation=serializable' });
    const s = store({ db });
    const version = await s.set('k', 'pending');
    const lock = await lockRow(s.schema, 'k', true);
    const pending = s.compareAndSet('k', version, 'approved');
    await until(async () => (await lockWaiters()) === 1, 5_000, 'the write to wait');
    await lock.commit();
    expect(await pending).toMatchObject({ ok: true });
    expect(await s.get('k')).toBe('approved');
  });

  it('[PG-05] fails with serialization_failure once the retries are spent, writing nothing', async () => {
    const db = server.pool({ options: '-c default_transaction_isolation=serializable' });
    const s = store({ db, serializationRetries: 0 });
    const version = await s.set('k', 'pending');
    const lock = await lockRow(s.schema, 'k', true);
    const pending = s.compareAndSet('k', version, 'approved').catch((error: unknown) => error);
    await until(async () => (await lockWaiters()) === 1, 5_000, 'the write to wait');
    await lock.commit();
    expect(await pending).toMatchObject({ code: 'serialization_failure', details: { sqlstate: '40001' } });
    expect(await s.getEntry('k')).toMatchObject({ value: 'pending', version });
  });

  it('fails with query_failed when the role may not read the table', async () => {
    const owner = store();
    await owner.set('k', 1);
    const reader = store({ db: server.pool({ user: 'reader' }), schema: owner.schema, migrate: false });
    await expect(reader.get('k')).rejects.toMatchObject({
      code: 'query_failed',
      details: { sqlstate: '42501' },
    });
  });

  it('fails with query_failed when migrate is false and the table was never created', async () => {
    const s = store({ migrate: false });
    await expect(s.get('k')).rejects.toMatchObject({ code: 'query_failed', details: { sqlstate: '42P01' } });
  });
});

describe('migration', () => {
  it('uses the parley schema by default', async () => {
    const pool = server.pool();
    await migratePostgresStore(pool);
    const s = createPostgresStore({ db: pool });
    opened.push(s);
    expect(s.schema).toBe('parley');
    await s.set('k', 1);
    expect((await pool.query('SELECT key FROM parley.store_entries')).rows).toEqual([{ key: 'k' }]);
  });

  it('[PG-06] is idempotent and safe from several pools at once, and keeps the rows it finds', async () => {
    const schema = `m_${++n}`;
    const stores = Array.from({ length: 5 }, () => store({ schema }));
    const versions = await Promise.all(stores.map((s, i) => s.set(`k${i}`, i)));
    expect(new Set(versions).size).toBe(5);
    await migratePostgresStore(server.pool(), { schema });
    const again = store({ schema });
    expect(await again.get('k3')).toBe(3);
    const comment = await server
      .pool()
      .query(`SELECT obj_description('${schema}.store_entries'::regclass) AS c`);
    expect(comment.rows[0].c).toBe('parley-store format 1');
  });

  it('[PG-06] refuses a table of another format with unsupported_format and changes nothing', async () => {
    const admin = server.pool();
    await admin.query(`CREATE SCHEMA old_fmt;
      CREATE TABLE old_fmt.store_entries (key text PRIMARY KEY, value text);
      INSERT INTO old_fmt.store_entries VALUES ('k', 'v');
      COMMENT ON TABLE old_fmt.store_entries IS 'parley-store format 2'`);
    const s = store({ schema: 'old_fmt' });
    await expect(s.get('k')).rejects.toMatchObject({
      code: 'unsupported_format',
      details: { sqlstate: 'PSF01' },
    });
    await expect(migratePostgresStore(admin, { schema: 'old_fmt' })).rejects.toMatchObject({
      code: 'unsupported_format',
    });
    const rows = await admin.query(
      "SELECT value, obj_description('old_fmt.store_entries'::regclass) AS c FROM old_fmt.store_entries",
    );
    expect(rows.rows).toEqual([{ value: 'v', c: 'parley-store format 2' }]);
  });
});

describe('what the store refuses', () => {
  it('refuses a key longer than MAX_KEY_BYTES once encoded with key_too_long', async () => {
    const s = store();
    const longest = '确'.repeat(Math.floor(MAX_KEY_BYTES / 3));
    await s.set(longest, 1);
    expect(await s.get(longest)).toBe(1);
    for (const key of ['a'.repeat(MAX_KEY_BYTES + 1), `${longest}确`, '\ud800'.repeat(400)]) {
      await expect(s.set(key, 1)).rejects.toMatchObject({ code: 'key_too_long' });
      await expect(s.get(key)).rejects.toMatchObject({ code: 'key_too_long' });
    }
    const listed: string[] = [];
    for await (const entry of s.list('a'.repeat(MAX_KEY_BYTES + 1))) listed.push(entry.key);
    expect(listed).toEqual([]);
  });

  it('refuses values beyond jsonLimits with the core json_* codes, storing nothing', async () => {
    const s = store({ jsonLimits: { maxDepth: 2, maxBytes: 64 } });
    await expect(s.set('k', { a: { b: { c: 1 } } })).rejects.toMatchObject({
      code: 'json_too_deep',
      details: { path: 'a.b' },
    });
    await expect(s.set('k', 'x'.repeat(100))).rejects.toMatchObject({ code: 'json_too_large', details: {} });
    expect(await s.get('k')).toBeUndefined();
  });

  it('counts a key in UTF-8 bytes: one, two and three bytes a character', async () => {
    const s = store();
    await s.set('é'.repeat(MAX_KEY_BYTES / 2), 1);
    await expect(s.set(`${'é'.repeat(MAX_KEY_BYTES / 2)}a`, 1)).rejects.toMatchObject({
      code: 'key_too_long',
    });
  });

  it('maps anything else a driver throws to connection_lost, sent', async () => {
    const s = store({ db: { query: () => Promise.reject('socket hang up') }, migrate: false });
    await expect(s.get('k')).rejects.toMatchObject({
      code: 'connection_lost',
      message: 'The Postgres connection failed: socket hang up',
      details: { key: 'k', sent: true },
    });
  });

  it('refuses bad options with invalid_argument', () => {
    expect(() => createPostgresStore({ db: undefined as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    for (const schema of ['Bad', 'a-b', '', 'x'.repeat(41), '1st']) {
      expect(() => createPostgresStore({ db: server.pool(), schema })).toThrow(
        expect.objectContaining({ code: 'invalid_argument', details: { schema } }),
      );
    }
  });

  it('fails with corrupt_value on a row it did not write, and list skips it with a corrupt event', async () => {
    const s = store();
    await s.set('ok', 1);
    await server.pool().query(`INSERT INTO ${s.schema}.store_entries VALUES ('bad', 'not json', 1, NULL),
      ('bad%zz', '1', 2, NULL)`);
    const corrupt: PostgresStoreEvents['corrupt'][] = [];
    s.on('corrupt', (event) => corrupt.push(event));
    await expect(s.get('bad')).rejects.toMatchObject({ code: 'corrupt_value', details: { key: 'bad' } });
    const listed: string[] = [];
    for await (const entry of s.list('')) listed.push(entry.key);
    expect(listed).toEqual(['ok']);
    expect(corrupt.map((e) => `${e.source}:${e.key}`)).toEqual(['get:bad', 'list:bad', 'list:bad%zz']);
  });

  it('fails with connection_lost (not sent) on a closed PGlite, and on an unreachable server', async () => {
    const db = new PGlite();
    const s = createPostgresStore({ db, schema: 'closed' });
    await s.set('k', 1);
    await db.close();
    const failure = await s.get('k').catch((error: unknown) => error);
    expect(isParleyError(failure, 'connection_lost')).toBe(true);
    expect((failure as { details: { sent: boolean } }).details.sent).toBe(false);
    expect(() => s.watch('', () => {})).not.toThrow();
    await s.close();
    const nowhere = store({ db: server.pool({ port: 1 }) });
    await expect(nowhere.get('k')).rejects.toMatchObject({
      code: 'connection_lost',
      details: { sent: false },
    });
  });
});
