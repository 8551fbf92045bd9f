import { createMemoryStore, type Store, type StoreChange, type Unsubscribe } from '@parley/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createRedisStore, type RedisStore } from '../src/index.js';
import { storeContract } from './contract.js';
import { type RedisServer, startRedis } from './helpers.js';

let server: RedisServer;
let redis: Redis;
let count = 0;
const opened: Store[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = server.client();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await server.stop();
});

storeContract('createMemoryStore', async () => {
  const store = createMemoryStore();
  opened.push(store);
  return {
    store,
    watch: async (prefix: string, listener: (change: StoreChange) => void): Promise<Unsubscribe> =>
      store.watch?.(prefix, listener) ?? (() => {}),
  };
});

storeContract('createRedisStore', async () => {
  const store: RedisStore = createRedisStore({ redis, prefix: `contract${++count}:` });
  opened.push(store);
  return {
    store,
    watch: (prefix, listener) =>
      new Promise<Unsubscribe>((resolve) => {
        const off = store.watch(prefix, listener, { onResync: () => resolve(off) });
      }),
  };
});
