import { isParleyError, type StoreChange } from '@parley/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisStoreEvents } from '../src/index.js';
import { collect, type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterEach(() => {
  server.disconnectClients(); // clients made by the test, so no reconnect timer outlives it
});
afterAll(async () => {
  await server.stop();
});

/** Fast reconnects so the test waits for the restart, not for backoff. */
const fast = { retryStrategy: () => 50, disconnectTimeout: 20 } as const; // a dropped socket is destroyed within the leak check's grace

describe('Redis restarted mid-run', () => {
  it('fails calls with connection_lost during the outage, then resubscribes and tells watchers to resync', async () => {
    const a = createRedisStore({ redis: server.client(fast), prefix: 'outage:' });
    const b = createRedisStore({ redis: server.client(fast), prefix: 'outage:' });
    const connection: string[] = [];
    const errors: string[] = [];
    a.on('error', (e) => errors.push(e.source));
    a.on('connection', (e) => connection.push(`${e.connection}:${e.state}`));
    const heard: StoreChange[] = [];
    const resyncs: string[] = [];
    let subscribed!: () => void;
    const live = new Promise<void>((resolve) => (subscribed = resolve));
    a.watch('confirm:', (change) => heard.push(change), {
      onResync: ({ reason }) => {
        resyncs.push(reason);
        if (reason === 'subscribed') subscribed();
      },
    });
    await live;
    await b.set('confirm:before', 1);
    await until(() => heard.length === 1, 20_000, 'the change before the outage');

    await server.kill();
    await until(() => connection.includes('commands:lost'), 20_000, 'the lost connection');
    const failure = await a.set('confirm:during', 1).catch((error: unknown) => error);
    expect(isParleyError(failure, 'connection_lost')).toBe(true);
    expect((failure as { details: { sent: boolean } }).details.sent).toBe(false);
    await expect(a.get('confirm:before')).rejects.toMatchObject({ code: 'connection_lost' });
    await expect(a.compareAndSet('confirm:before', 1, 2)).rejects.toMatchObject({ code: 'connection_lost' });
    expect(resyncs).toEqual(['subscribed']);
    await until(() => errors.includes('subscriber'), 20_000, 'the subscriber to report a failed reconnect');

    await server.start(); // a fresh, empty server on the same port
    await until(() => resyncs.length === 2, 10_000, 'the resync after the restart');
    expect(resyncs).toEqual(['subscribed', 'reconnected']);
    expect(connection).toEqual(
      expect.arrayContaining(['commands:lost', 'subscriber:lost', 'subscriber:ready']),
    );
    await until(() => connection.includes('commands:ready'), 10_000, 'the command connection');
    await until(
      async () => (await b.set('confirm:after', 2).catch(() => 0)) > 0,
      10_000,
      'replica B to write',
    );
    await until(() => heard.some((c) => c.key === 'confirm:after'), 20_000, 'the change after the restart');
    expect(heard.map((c) => c.key)).not.toContain('confirm:during');
    expect(await a.get('confirm:during')).toBeUndefined();
    expect(await a.get('confirm:after')).toBe(2); // the write script was loaded again (NOSCRIPT)
    await a.close();
    await b.close();
  });

  it('rejects a call in flight when the connection drops, saying it may have been sent', async () => {
    const admin = server.client(fast);
    await until(async () => (await admin.ping().catch(() => '')) === 'PONG', 10_000, 'the server');
    const store = createRedisStore({ redis: server.client(fast), prefix: 'inflight:' });
    await store.set('k', 1);
    await admin.client('PAUSE', 10_000, 'ALL');
    const pending = store.get('k').catch((error: unknown) => error);
    await server.kill();
    try {
      const failure = await pending;
      expect(isParleyError(failure, 'connection_lost')).toBe(true);
      expect((failure as { details: { sent: boolean } }).details).toMatchObject({ key: 'k', sent: true });
    } finally {
      await server.start();
      await store.close();
      admin.disconnect(); // its reconnect timer would outlive the test
    }
  });

  it('fails at once on a client that was quit, and on one created while Redis is down', async () => {
    const redis = server.client(fast);
    await until(async () => (await redis.ping().catch(() => '')) === 'PONG', 10_000, 'the server');
    const store = createRedisStore({ redis, prefix: 'quit:' });
    await redis.quit();
    await until(() => redis.status === 'end', 20_000, 'the client to end');
    await expect(store.get('k')).rejects.toMatchObject({ code: 'connection_lost', details: { sent: false } });

    await server.kill();
    try {
      const down = server.client(fast);
      await until(() => down.status === 'reconnecting', 20_000, 'the client to retry');
      const late = createRedisStore({ redis: down, prefix: 'quit:' });
      const lost: string[] = [];
      late.on('connection', (e) => lost.push(e.state));
      await new Promise((resolve) => down.once('close', resolve)); // another failed attempt
      await expect(late.set('k', 1)).rejects.toMatchObject({ code: 'connection_lost' });
      expect(lost).toEqual([]); // it was lost from the start: no new 'lost' event
      await late.close();
    } finally {
      await server.start();
    }
  });

  it('maps an ioredis transport error to connection_lost', async () => {
    const redis = server.client({ ...fast, enableOfflineQueue: false, lazyConnect: true });
    const store = createRedisStore({ redis, prefix: 'offline:' });
    const failure = await store.get('k').catch((error: unknown) => error);
    expect(isParleyError(failure, 'connection_lost')).toBe(true);
    expect((failure as Error).cause).toBeInstanceOf(Error);
    await store.close();
  });
});

describe('refusals from Redis', () => {
  it('fails a write with script_failed when Redis refuses the script (out of memory)', async () => {
    const admin = server.client();
    const store = createRedisStore({ redis: server.client(), prefix: 'oom:' });
    await store.set('k', 1);
    await admin.config('SET', 'maxmemory', '1');
    try {
      await expect(store.set('k', 2)).rejects.toMatchObject({ code: 'script_failed', details: { key: 'k' } });
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(await store.get('k')).toBe(1);
    await store.close();
  });

  it('fails a read with command_failed when Redis refuses it (ACL)', async () => {
    const admin = server.client();
    await admin.acl('SETUSER', 'reader', 'on', 'nopass', '~*', '&*', '+@all', '-hgetall');
    await admin.acl('SETUSER', 'noscan', 'on', 'nopass', '~*', '&*', '+@all', '-scan');
    const writer = createRedisStore({ redis: admin, prefix: 'acl:' });
    await writer.set('k', 1);
    const store = createRedisStore({ redis: server.client({ username: 'reader' }), prefix: 'acl:' });
    await expect(store.get('k')).rejects.toMatchObject({ code: 'command_failed', details: { key: 'k' } });
    await expect(collect(store.list(''))).rejects.toMatchObject({
      code: 'command_failed',
      details: { key: 'k' },
    });
    const noscan = createRedisStore({ redis: server.client({ username: 'noscan' }), prefix: 'acl:' });
    await expect(collect(noscan.list('x*'))).rejects.toMatchObject({
      code: 'command_failed',
      details: { match: 'acl:data:x\\**' },
    });
    await store.close();
    await noscan.close();
  });

  it('reports a failed CONFIG as an error event, and still watches', async () => {
    const admin = server.client();
    await admin.acl('SETUSER', 'noconfig', 'on', 'nopass', '~*', '&*', '+@all', '-config');
    const store = createRedisStore({
      redis: server.client({ username: 'noconfig' }),
      prefix: 'noconfig:',
      configureExpiryEvents: true,
    });
    const errors: RedisStoreEvents['error'][] = [];
    store.on('error', (event) => errors.push(event));
    await new Promise<void>((resolve) => store.watch('', () => {}, { onResync: () => resolve() }));
    await until(() => errors.length === 1, 20_000, 'the configure error');
    expect(errors[0]?.source).toBe('configure');
    expect(errors[0]?.error).toMatchObject({ code: 'command_failed' });
    await store.close();
  });
});

describe('script cache', () => {
  it('runs the write script again by EVAL when Redis has flushed its script cache', async () => {
    const admin = server.client();
    const store = createRedisStore({ redis: server.client(), prefix: 'flush:' });
    const v1 = await store.set('k', 1);
    await admin.script('FLUSH');
    expect(await store.set('k', 2)).toBeGreaterThan(v1);
    expect(await store.get('k')).toBe(2);
    expect(await admin.script('EXISTS', (await admin.script('LOAD', 'return 1')) as string)).toEqual([1]);
    await store.close();
  });
});
