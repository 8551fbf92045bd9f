// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/redis, compiled and run against a real Redis; each console.log of
// an example is an assertion here.
import { isParleyError } from '@parley/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisStore,
  DEFAULT_SCAN_COUNT,
  REDIS_STORE_ERROR_CODES,
  type RedisStore,
  RedisStoreError,
  type RedisStoreErrorCode,
  type RedisStoreEvents,
  type RedisStoreOptions,
  type RedisWatchOptions,
  type ResyncReason,
} from '../src/index.js';
import { type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});
afterAll(async () => {
  await server.stop();
});

describe('errors.ts examples', () => {
  it('REDIS_STORE_ERROR_CODES', () => {
    expect(REDIS_STORE_ERROR_CODES.includes('connection_lost')).toBe(true);
  });

  it('RedisStoreErrorCode', () => {
    const code: RedisStoreErrorCode = 'corrupt_value';
    expect(REDIS_STORE_ERROR_CODES).toContain(code);
  });

  it('RedisStoreError', () => {
    const err = new RedisStoreError('connection_lost', 'Redis is unreachable', { details: { sent: false } });
    expect([isParleyError(err, 'connection_lost'), err.details.sent]).toEqual([true, false]);
  });
});

describe('watch.ts examples', () => {
  it('ResyncReason', () => {
    const reason: ResyncReason = 'reconnected';
    expect(reason).toBe('reconnected');
  });

  it('RedisWatchOptions', () => {
    const lines: string[] = [];
    const options: RedisWatchOptions = {
      onResync: ({ prefix, reason }) => lines.push(`re-read ${prefix} (${reason})`),
    };
    options.onResync?.({ prefix: 'confirm:', reason: 'subscribed' });
    expect(lines).toEqual(['re-read confirm: (subscribed)']);
  });
});

describe('store.ts examples', () => {
  it('RedisStoreOptions', () => {
    function optionsFor(client: Redis): RedisStoreOptions {
      return { redis: client, prefix: 'billing-bot:', scanCount: 500 };
    }
    expect(optionsFor(redis).scanCount).toBe(500);
  });

  it('RedisStoreEvents', () => {
    const event: RedisStoreEvents['corrupt'] = { key: 'confirm:abc', reason: 'missing value', source: 'get' };
    expect(event.source).toBe('get');
  });

  it('RedisStore', async () => {
    const lines: string[] = [];
    function logOutages(store: RedisStore): void {
      store.on('connection', ({ connection, state }) => lines.push(`${connection} ${state}`));
    }
    const client = server.client({ retryStrategy: () => 20 });
    const store = createRedisStore({ redis: client, prefix: 'outages:' });
    logOutages(store);
    await client.ping();
    client.stream.destroy(); // the socket drops; ioredis reconnects
    await until(() => lines.length === 2, 20_000, 'lost and ready');
    expect(lines).toEqual(['commands lost', 'commands ready']);
    await store.close();
  });

  it('DEFAULT_SCAN_COUNT', () => {
    expect(DEFAULT_SCAN_COUNT).toBe(1000);
  });

  it('createRedisStore', async () => {
    const logged: unknown[][] = [];
    async function remember(client: Redis): Promise<void> {
      const store = createRedisStore({ redis: client, prefix: 'billing-bot:' });
      const version = await store.set('confirm:abc', { state: 'pending' }, { ttlMs: 60_000 });
      const won = await store.compareAndSet('confirm:abc', version, { state: 'approved' });
      logged.push([won.ok, await store.get('confirm:abc')]);
      await store.close(); // the client stays open
    }
    await remember(redis);
    expect(logged).toEqual([[true, { state: 'approved' }]]);
    expect(redis.status).toBe('ready');
  });
});
