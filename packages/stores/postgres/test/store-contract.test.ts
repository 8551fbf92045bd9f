import { PGlite } from '@electric-sql/pglite';
import type { Store } from '@parley/core';
import { kernelConformanceCases } from '@parley/testing';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { runs } from '../../../../tests/reliability/config.js';
import { createPostgresStore } from '../src/index.js';
import { live, storeContract } from './conformance.js';
import { type PostgresServer, startPostgres } from './server.js';

let server: PostgresServer;
let pglite: PGlite;
let count = 0;
const opened: Store[] = [];

beforeAll(async () => {
  server = await startPostgres();
  pglite = new PGlite();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await pglite.close();
  await server.stop();
});

storeContract('createPostgresStore on a pg Pool', async () => {
  const store = createPostgresStore({ db: server.pool(), schema: `contract_${++count}` });
  opened.push(store);
  return { store, watch: (prefix, listener) => live(store, prefix, listener) };
});

storeContract('createPostgresStore on PGlite', async () => {
  const store = createPostgresStore({ db: pglite, schema: `contract_${++count}` });
  opened.push(store);
  return { store, watch: (prefix, listener) => live(store, prefix, listener) };
});

// The durable kernel's conformance suite on the same server: seeds from fast-check, fixed in npm
// test and 100 times more under PARLEY_SOAK=full.
describe('createPostgresStore on a pg Pool: kernelConformanceCases', () => {
  for (const check of kernelConformanceCases()) {
    it(check.name, async () => {
      const store = createPostgresStore({ db: server.pool(), schema: `kernel_${++count}` });
      opened.push(store);
      await fc.assert(
        // each walk's keys carry its seed (a seed drawn twice in one run is a 1 in 2^31 chance)
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) =>
          check.run(async () => ({ store }), { seed, steps: 40 }),
        ),
        { seed: 31, numRuns: runs(4) },
      );
    });
  }
});
