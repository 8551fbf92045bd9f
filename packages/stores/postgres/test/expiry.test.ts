import { PGlite } from '@electric-sql/pglite';
import { createManualClock, type StoreChange } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresStoreEvents } from '../src/index.js';
import { live } from './conformance.js';

let db: PGlite;
let n = 0;

beforeAll(() => {
  db = new PGlite();
});
afterAll(async () => {
  await db.close();
});

async function rows(schema: string): Promise<number> {
  const result = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.store_entries`);
  return result.rows[0]?.n ?? -1;
}

describe('expiry', () => {
  it('treats a row past its ttl as absent on every read before any sweep has run', async () => {
    const clock = createManualClock();
    const schema = `expiry_${++n}`;
    const store = createPostgresStore({ db, schema, clock, sweepIntervalMs: 0 });
    const version = await store.set('confirm:a', { state: 'pending' }, { ttlMs: 1000 });
    await store.set('confirm:b', 'kept');
    expect((await store.getEntry('confirm:a'))?.expiresAt).toBe(clock.now() + 1000);
    clock.advance(1000);
    expect(await store.get('confirm:a')).toBeUndefined();
    expect(await store.getEntry('confirm:a')).toBeUndefined();
    expect((await collectKeys(store.list('confirm:'))).sort()).toEqual(['confirm:b']);
    expect(await store.compareAndSet('confirm:a', version, 'late')).toEqual({ ok: false, version: null });
    expect(await store.compareAndSet('confirm:a', version, undefined)).toEqual({ ok: false, version: null });
    expect(await store.delete('confirm:a')).toBe(false);
    expect(await rows(schema)).toBe(1); // the expired row is gone too, through delete, not the sweep
    await store.close();
  });

  it('lets compareAndSet(null) take over a key whose row expired but was not swept', async () => {
    const clock = createManualClock();
    const schema = `expiry_${++n}`;
    const store = createPostgresStore({ db, schema, clock, sweepIntervalMs: 0 });
    const first = await store.set('lock', 'a', { ttlMs: 50 });
    expect((await store.compareAndSet('lock', null, 'b')).ok).toBe(false);
    clock.advance(50);
    const second = await store.compareAndSet('lock', null, 'b');
    expect(second.ok && second.version > first).toBe(true);
    expect(await store.get('lock')).toBe('b');
    expect(await rows(schema)).toBe(1);
    await store.close();
  });

  it('sweeps at most sweepLimit rows per run on the injected clock, and watchers hear expire', async () => {
    const clock = createManualClock();
    const schema = `expiry_${++n}`;
    const store = createPostgresStore({ db, schema, clock, sweepIntervalMs: 10_000, sweepLimit: 3 });
    const swept: number[] = [];
    store.on('swept', ({ count }) => swept.push(count));
    const heard: StoreChange[] = [];
    await live(store, 'p:', (change) => heard.push(change));
    for (let i = 0; i < 5; i++) await store.set(`p:${i}`, i, { ttlMs: 1000 });
    await store.set('p:kept', 'x');
    heard.length = 0;
    clock.advance(1000);
    expect(await store.compareAndSet('p:0', null, 'new')).toMatchObject({ ok: true }); // taken over, not swept
    clock.advance(9000); // the first sweep: a full batch, so the next one runs at once
    await until(() => swept.length === 1);
    expect(swept).toEqual([3]);
    clock.advance(0);
    await until(() => swept.length === 2);
    expect(swept).toEqual([3, 1]);
    expect(await rows(schema)).toBe(2);
    await until(() => heard.length === 5);
    expect(heard[0]).toMatchObject({ key: 'p:0', kind: 'set' });
    expect(heard.slice(1).every((c) => c.kind === 'expire' && c.version === null)).toBe(true);
    expect(
      heard
        .slice(1)
        .map((c) => c.key)
        .sort(),
    ).toEqual(['p:1', 'p:2', 'p:3', 'p:4']);
    await store.close();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports a failed sweep as an error event and tries again at the next interval', async () => {
    const clock = createManualClock();
    let down = false;
    const failing = {
      async query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> {
        if (down) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        if (values === undefined) return { rows: [await db.exec(text)] }; // the migration script
        return db.query(text, values);
      },
    };
    const store = createPostgresStore({ db: failing, schema: 'sweep_fail', clock, sweepIntervalMs: 100 });
    const errors: PostgresStoreEvents['error'][] = [];
    store.on('error', (event) => errors.push(event));
    await store.set('k', 1, { ttlMs: 10 });
    down = true;
    clock.advance(100);
    await until(() => errors.length === 1);
    expect(errors[0]).toMatchObject({
      source: 'sweep',
      error: { code: 'connection_lost', details: { sent: true } },
    });
    clock.advance(100);
    await until(() => errors.length === 2);
    await store.close();
    clock.advance(1000);
    expect(errors).toHaveLength(2);
  });

  it('schedules nothing more once closed while a sweep was running', async () => {
    const clock = createManualClock();
    const store = createPostgresStore({ db, schema: `expiry_${++n}`, clock, sweepIntervalMs: 100 });
    await store.set('k', 1, { ttlMs: 10 });
    const swept: number[] = [];
    store.on('swept', ({ count }) => swept.push(count));
    clock.advance(100); // the sweep starts
    await store.close();
    await until(() => true);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(1_000);
    expect(swept).toEqual([]);
  });

  it('runs no sweep when sweepIntervalMs is 0, and sweep() deletes on demand', async () => {
    const clock = createManualClock();
    const schema = `expiry_${++n}`;
    const store = createPostgresStore({ db, schema, clock, sweepIntervalMs: 0 });
    await store.set('k', 1, { ttlMs: 10 });
    clock.advance(60_000);
    expect(clock.pendingTimers()).toBe(0);
    expect(await rows(schema)).toBe(1);
    expect(await store.sweep()).toBe(1);
    expect(await store.sweep()).toBe(0);
    expect(await rows(schema)).toBe(0);
    await store.close();
  });
});

async function collectKeys(iterable: AsyncIterable<{ key: string }>): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of iterable) keys.push(entry.key);
  return keys;
}

/** Waits for I/O the clock started (a sweep's statement); the clock itself only moves by hand. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}
