import type { StoreChange } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisStore, type RedisStoreEvents } from '../src/index.js';
import { collect, type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterEach(() => {
  server.disconnectClients(); // clients made by the test, so no reconnect timer outlives it
});
afterAll(async () => {
  await server.stop();
});

/** Two replicas: two stores on two separate connections, one application prefix. */
function replicas(options: { configureExpiryEvents?: boolean } = {}): [RedisStore, RedisStore] {
  const prefix = `app${++n}:`;
  return [
    createRedisStore({ redis: server.client(), prefix, ...options }),
    createRedisStore({ redis: server.client(), prefix, ...options }),
  ];
}

function live(
  store: RedisStore,
  prefix: string,
  listener: (change: StoreChange) => void,
): Promise<() => void> {
  return new Promise((resolve) => {
    const off = store.watch(prefix, listener, { onResync: () => resolve(off) });
  });
}

describe('two replicas on one Redis', () => {
  it('lets one replica hear what the other writes, with the version written', async () => {
    const [a, b] = replicas();
    const heard: StoreChange[] = [];
    await live(a, 'confirm:', (change) => heard.push(change));
    const version = await b.set('confirm:s1', { state: 'pending' });
    await until(() => heard.length === 1, 20_000, 'the change on replica A');
    expect(heard).toEqual([{ key: 'confirm:s1', version, kind: 'set' }]);
    expect(await a.get('confirm:s1')).toEqual({ state: 'pending' });
  });

  it('lets exactly one of two replicas settle the same pending entry', async () => {
    const [a, b] = replicas();
    for (let round = 0; round < 50; round++) {
      const key = `confirm:${round}`;
      const version = await a.set(key, { state: 'pending' });
      const results = await Promise.all([
        a.compareAndSet(key, version, { state: 'approved', by: 'a' }),
        b.compareAndSet(key, version, { state: 'cancelled', by: 'b' }),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const stored = (await a.get(key)) as { by: string };
      expect(stored.by).toBe(results[0]?.ok ? 'a' : 'b');
    }
  });

  it('loses no increment when two replicas race read-modify-write loops', async () => {
    const [a, b] = replicas();
    await a.set('counter', 0);
    const increment = async (store: RedisStore): Promise<number> => {
      let retries = 0;
      for (;;) {
        const entry = await store.getEntry('counter');
        const result = await store.compareAndSet(
          'counter',
          entry?.version ?? null,
          (entry?.value as number) + 1,
        );
        if (result.ok) return retries;
        retries++;
      }
    };
    const runs = await Promise.all([
      ...Array.from({ length: 25 }, () => increment(a)),
      ...Array.from({ length: 25 }, () => increment(b)),
    ]);
    expect(await b.get('counter')).toBe(50);
    expect(runs.reduce((sum, r) => sum + r, 0)).toBeGreaterThan(0); // the race really happened
  });

  it('tells a watcher added to a live subscription that it is live', async () => {
    const [a] = replicas();
    await live(a, 'x:', () => {});
    const reasons: string[] = [];
    await new Promise<void>((resolve) => {
      a.watch('y:', () => {}, {
        onResync: ({ prefix, reason }) => {
          reasons.push(`${prefix}${reason}`);
          resolve();
        },
      });
    });
    expect(reasons).toEqual(['y:subscribed']);
  });

  it('emits resync once the subscription is live, and no resync for an unsubscribed watcher', async () => {
    const [a] = replicas();
    const resyncs: RedisStoreEvents['resync'][] = [];
    a.on('resync', (event) => resyncs.push(event));
    const early = { called: false };
    const off = a.watch('p:', () => {}, { onResync: () => (early.called = true) });
    off();
    await live(a, 'q:', () => {});
    expect(resyncs).toEqual([{ reason: 'subscribed' }]);
    expect(early.called).toBe(false);
  });

  it('reports a watcher that throws as an error event and still calls the others', async () => {
    const [a, b] = replicas();
    const errors: RedisStoreEvents['error'][] = [];
    a.on('error', (event) => errors.push(event));
    await live(a, '', () => {
      throw new Error('listener bug');
    });
    const heard: string[] = [];
    await live(a, '', (change) => heard.push(change.key));
    await b.set('k', 1);
    await until(() => heard.length === 1, 20_000, 'the second listener');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.source).toBe('listener');
    expect(errors[0]?.error).toMatchObject({ message: 'listener bug' });
  });

  it('reports a resync listener that throws as an error event', async () => {
    const [a] = replicas();
    const errors: RedisStoreEvents['error'][] = [];
    a.on('error', (event) => errors.push(event));
    a.watch('', () => {}, {
      onResync: () => {
        throw new Error('resync bug');
      },
    });
    await until(() => errors.length === 1, 20_000, 'the error event');
    expect(errors[0]?.source).toBe('listener');
  });

  it('reports a key expired by Redis itself when expiry events are configured', async () => {
    const [a, b] = replicas({ configureExpiryEvents: true });
    const heard: StoreChange[] = [];
    await live(a, 'confirm:', (change) => heard.push(change));
    const config = server.client();
    await until(
      async () =>
        ((await config.config('GET', 'notify-keyspace-events')) as string[])[1]?.includes('x') ?? false,
      20_000,
      'notify-keyspace-events to include x',
    );
    const configErrors: unknown[] = [];
    b.on('error', (e) => configErrors.push(e));
    await live(b, 'other:', () => {}); // configures again: already set, nothing to change
    await b.set('confirm:short', 1, { ttlMs: 100 });
    await until(() => heard.some((c) => c.kind === 'expire'), 20_000, 'the expire change');
    expect(heard.map((c) => [c.kind, c.key, c.kind === 'set' ? 'v' : c.version])).toEqual([
      ['set', 'confirm:short', 'v'],
      ['expire', 'confirm:short', null],
    ]);
    expect(await collect(a.list('confirm:'))).toEqual([]);
    expect(configErrors).toEqual([]);
  });

  it('[STORE-4] reports the expiry of a lone-surrogate key under its own name, and none for a name it cannot have written', async () => {
    const [a] = replicas({ configureExpiryEvents: true });
    const heard: StoreChange[] = [];
    await live(a, 'confirm:', (change) => heard.push(change));
    const raw = server.client();
    await raw.hset(`${a.prefix}data:confirm:50%`, { v: '1', j: '1' });
    await raw.pexpire(`${a.prefix}data:confirm:50%`, 50);
    await a.set('confirm:\udbff', 1, { ttlMs: 100 });
    await until(() => heard.some((c) => c.kind === 'expire'), 20_000, 'the expire change');
    await until(
      async () => (await raw.exists(`${a.prefix}data:confirm:50%`)) === 0,
      20_000,
      'the old key to go',
    );
    expect(heard.map((c) => [c.kind, c.key])).toEqual([
      ['set', 'confirm:\udbff'],
      ['expire', 'confirm:\udbff'],
    ]);
  });

  it('does not tell a watcher removed at once that it is live', async () => {
    const [a] = replicas();
    await live(a, 'x:', () => {});
    const late = { called: false };
    const off = a.watch('y:', () => {}, { onResync: () => (late.called = true) });
    off();
    await live(a, 'z:', () => {}); // queued after the removed watcher's notice
    expect(late.called).toBe(false);
  });

  it('tells no watcher anything when the store closes before the subscription is live', async () => {
    const [a, b] = replicas();
    const calls: string[] = [];
    a.on('resync', () => calls.push('event'));
    a.watch('', (c) => calls.push(c.key), { onResync: () => calls.push('resync') });
    await a.close();
    await b.set('k', 1);
    const [c] = replicas();
    await live(c, '', () => {}); // a later subscription on the same server is live
    expect(calls).toEqual([]);
  });
});
