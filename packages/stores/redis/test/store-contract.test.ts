import { createMemoryStore, type Store, type StoreChange, type Unsubscribe } from '@parley/core';
import { kernelConformanceCases, type StoreConformanceSubject, storeConformanceCases } from '@parley/testing';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { runs } from '../../../../tests/reliability/config.js';
import { createRedisStore, type RedisStore } from '../src/index.js';
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

/** Runs @parley/testing's Store conformance cases under `describe`, one `it` per case. */
function storeContract(name: string, make: () => Promise<StoreConformanceSubject>): void {
  describe(`${name}: Store contract`, () => {
    for (const group of [undefined, 'compareAndSet', 'watch'] as const) {
      const cases = storeConformanceCases().filter((c) => c.group === group);
      const register = (): void => {
        for (const c of cases) {
          it(c.name, () => c.run(make));
        }
      };
      if (group === undefined) register();
      else describe(group, register);
    }
  });
}

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

// The durable kernel's conformance suite on the same server: seeds from fast-check, fixed in npm
// test and 100 times more under PARLEY_SOAK=full.
describe('createRedisStore: kernelConformanceCases', () => {
  for (const check of kernelConformanceCases()) {
    it(check.name, async () => {
      const make = async () => {
        const store = createRedisStore({ redis, prefix: `kernel${++count}:` });
        opened.push(store);
        return { store };
      };
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) =>
          check.run(make, { seed, steps: 40 }),
        ),
        { seed: 31, numRuns: runs(4) },
      );
    });
  }
});
