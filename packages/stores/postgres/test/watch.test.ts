import { createManualClock, type StoreChange } from '@parley/core';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  type PgQueryable,
  type PostgresStore,
  type PostgresStoreEvents,
} from '../src/index.js';
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

function store(options: Partial<Parameters<typeof createPostgresStore>[0]> = {}): PostgresStore {
  const made = createPostgresStore({ db: server.pool(), schema: `w_${++n}`, ...options });
  opened.push(made);
  return made;
}

function errorsOf(s: PostgresStore): PostgresStoreEvents['error'][] {
  const errors: PostgresStoreEvents['error'][] = [];
  s.on('error', (event) => errors.push(event));
  return errors;
}

describe('watch', () => {
  it('reports a notification it cannot read as an error event and keeps dispatching', async () => {
    const s = store();
    const errors = errorsOf(s);
    const heard: StoreChange[] = [];
    await live(s, '', (change) => heard.push(change));
    const channel = `parley_store_${s.schema}`;
    for (const payload of ['garbage', 's|x|k', 's|1|bad%zz', 'q||k', 'd|3|k', 'x||gone']) {
      await server.pool().query('SELECT pg_notify($1, $2)', [channel, payload]);
    }
    await until(() => heard.length === 1, 5_000, 'the readable notification');
    expect(heard).toEqual([{ key: 'gone', version: null, kind: 'expire' }]);
    expect(errors.map((e) => e.source)).toEqual(Array(5).fill('notification'));
  });

  it('reports a watcher or resync handler that throws as an error event, and the others still hear', async () => {
    const s = store();
    const errors = errorsOf(s);
    const heard: string[] = [];
    s.watch(
      '',
      () => {
        throw new Error('listener');
      },
      {
        onResync: () => {
          throw new Error('resync');
        },
      },
    );
    await live(s, '', (change) => heard.push(change.key));
    await s.set('k', 1);
    await until(() => heard.length === 1, 5_000, 'the change');
    expect(errors.map((e) => [e.source, (e.error as Error).message])).toEqual([
      ['watcher', 'resync'],
      ['watcher', 'listener'],
    ]);
  });

  it('tells a watcher added to a live LISTEN, and not one removed before it went live', async () => {
    const s = store();
    const resyncs: string[] = [];
    const off = s.watch('a', () => {}, { onResync: () => resyncs.push('removed') });
    off();
    await live(s, 'b', () => {});
    await live(s, 'c', () => {});
    s.watch('d', () => {}); // no onResync: nothing to tell
    expect(resyncs).toEqual([]);
  });

  it('drops a LISTEN that went live after close', async () => {
    const s = store();
    const connected = server.pool();
    const before = await connected.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1',
      ['LISTEN%'],
    );
    s.watch('', () => {});
    await s.close();
    await until(
      async () =>
        (
          await connected.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1', [
            'LISTEN%',
          ])
        ).rows[0].n === before.rows[0].n,
      5_000,
      'the listening connection to go',
    );
  });

  it('retries a listener that cannot connect on the clock, reporting each failure', async () => {
    const clock = createManualClock();
    const s = store({
      db: server.pool({ port: 1 }),
      clock,
      reconnectMs: 500,
      migrate: false,
      sweepIntervalMs: 0,
    });
    const errors = errorsOf(s);
    s.watch('', () => {});
    await until(() => errors.length === 1, 5_000, 'the failed connect');
    expect(clock.pendingTimers()).toBe(0); // background work: the reconnect never holds a process open
    clock.advance(500);
    await until(() => errors.length === 2, 5_000, 'the second attempt');
    expect(errors.every((e) => e.source === 'listener')).toBe(true);
    await s.close();
    clock.advance(5_000);
    expect(errors).toHaveLength(2);
  });

  it('reports a LISTEN the server refuses, and releases the connection it was lent', async () => {
    const pool = server.pool();
    const released: unknown[] = [];
    const refusing = {
      totalCount: 0,
      query: (text: string, values?: unknown[]) => pool.query(text, values),
      async connect() {
        return {
          query: async () => Promise.reject('LISTEN refused'),
          on: () => {},
          removeListener: () => {},
          release: (error: unknown) => released.push(error),
        };
      },
    };
    const s = store({ db: refusing as PgQueryable, reconnectMs: 10_000 });
    const errors = errorsOf(s);
    s.watch('', () => {});
    await until(() => errors.length === 1, 5_000, 'the refused LISTEN');
    expect(errors[0]).toMatchObject({ source: 'listener', error: 'LISTEN refused' });
    expect(released).toEqual([true]);
  });

  it('stops hearing, without reconnecting, when a pg Client it listens on ends', async () => {
    const client = (await server.pool().connect()) as pg.PoolClient;
    const s = store({ db: client as PgQueryable });
    const other = store({ schema: s.schema });
    const connection: string[] = [];
    s.on('connection', ({ state }) => connection.push(state));
    const errors = errorsOf(s);
    const heard: string[] = [];
    await live(s, '', (change) => heard.push(change.key));
    await client.query('LISTEN unrelated');
    await client.query("NOTIFY unrelated, 'x'"); // another channel on the same client: not ours
    await other.set('k', 1);
    await until(() => heard.length === 1, 5_000, 'the change');
    client.release(true);
    await until(() => connection.includes('lost'), 5_000, 'the lost listener');
    expect(errors.map((e) => e.source)).toEqual(['listener']);
    expect(heard).toEqual(['k']);
  });

  it('surfaces a session the server terminates mid-statement as connection_lost, sent', async () => {
    const s = store();
    const version = await s.set('k', 'pending');
    const admin = await server.pool().connect();
    await admin.query('BEGIN');
    await admin.query(`SELECT 1 FROM ${s.schema}.store_entries WHERE key = 'k' FOR UPDATE`);
    const pending = s.compareAndSet('k', version, 'approved').catch((error: unknown) => error);
    const waiting = "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
    await until(async () => (await admin.query(waiting)).rows.length === 1, 5_000, 'the write to wait');
    await server.pool().query(`SELECT pg_terminate_backend(pid) FROM (${waiting}) AS w`);
    expect(await pending).toMatchObject({
      code: 'connection_lost',
      details: { key: 'k', sent: true, sqlstate: '57P01' },
    });
    await admin.query('ROLLBACK');
    admin.release();
    expect(await s.getEntry('k')).toMatchObject({ value: 'pending', version });
  });
});
