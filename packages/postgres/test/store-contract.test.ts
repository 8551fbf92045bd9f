import { PGlite } from '@electric-sql/pglite';
import type { Store } from '@parley/core';
import { afterAll, afterEach, beforeAll } from 'vitest';
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
