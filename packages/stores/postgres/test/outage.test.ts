// The server stopped as a crash would (immediate shutdown: no checkpoint, crash recovery on start)
// and started again on the same port mid-run.
import { isParleyError, type StoreChange } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStore, type PostgresStoreEvents } from '../src/index.js';
import { type PostgresServer, startPostgres, until } from './server.js';

let server: PostgresServer;
const opened: PostgresStore[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  await server.endPools();
});
afterAll(async () => {
  await server.stop();
});

function store(schema: string): PostgresStore {
  const made = createPostgresStore({ db: server.pool(), schema, reconnectMs: 50 });
  opened.push(made);
  return made;
}

describe('PostgreSQL restarted mid-run', () => {
  it('[PG-02] keeps the pending record, fails calls with connection_lost meanwhile, and tells watchers to resync', async () => {
    const a = store('restart');
    const b = store('restart');
    const connection: PostgresStoreEvents['connection']['state'][] = [];
    const errors: string[] = [];
    a.on('connection', ({ state }) => connection.push(state));
    a.on('error', ({ source }) => errors.push(source));
    const resyncs: string[] = [];
    const heard: StoreChange[] = [];
    await new Promise<void>((resolve) => {
      a.watch('confirm:', (change) => heard.push(change), {
        onResync: ({ reason }) => {
          resyncs.push(reason);
          resolve();
        },
      });
    });
    const version = await b.set('confirm:pending', { state: 'pending' }, { ttlMs: 600_000 });
    await until(() => heard.length === 1, 5_000, 'the change before the outage');

    await server.kill();
    await until(() => connection.includes('lost'), 5_000, 'the lost listener');
    const failure = await a.set('confirm:during', 1).catch((error: unknown) => error);
    expect(isParleyError(failure, 'connection_lost')).toBe(true);
    expect((failure as { details: { sent: boolean } }).details.sent).toBe(false);
    await expect(a.compareAndSet('confirm:pending', version, 'x')).rejects.toMatchObject({
      code: 'connection_lost',
    });
    expect(resyncs).toEqual(['subscribed']);
    await until(() => errors.filter((s) => s === 'listener').length >= 2, 5_000, 'a failed reconnect');

    await server.start();
    await until(() => resyncs.length === 2, 10_000, 'the resync after the restart');
    expect(resyncs).toEqual(['subscribed', 'reconnected']);
    expect(connection).toEqual(['lost', 'ready']);
    expect(await a.getEntry('confirm:pending')).toMatchObject({ value: { state: 'pending' }, version });
    expect(await a.get('confirm:during')).toBeUndefined();
    expect(await b.compareAndSet('confirm:pending', version, { state: 'approved' })).toMatchObject({
      ok: true,
    });
    await until(() => heard.length === 2, 5_000, 'the change after the restart');
    expect(heard[1]).toMatchObject({ key: 'confirm:pending', kind: 'set' });
  });

  it('[PG-03] rejects a write in flight when the server dies with sent: true, and the write did not commit', async () => {
    const a = store('inflight');
    const version = await a.set('k', 'pending');
    const admin = await server.pool().connect();
    admin.on('error', () => {}); // it dies with the server
    await admin.query('BEGIN');
    await admin.query("SELECT 1 FROM inflight.store_entries WHERE key = 'k' FOR UPDATE");
    const pending = a.compareAndSet('k', version, 'approved').catch((error: unknown) => error);
    await until(
      async () =>
        (
          await server
            .pool()
            .query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        ).rows[0].n === 1,
      5_000,
      'the write to wait on the lock',
    );
    await server.kill();
    const failure = await pending;
    expect(isParleyError(failure, 'connection_lost')).toBe(true);
    expect((failure as { details: { sent: boolean; key: string } }).details).toMatchObject({
      key: 'k',
      sent: true,
    });
    admin.release(true);
    await server.start();
    expect(await a.getEntry('k')).toMatchObject({ value: 'pending', version });
  });
});
