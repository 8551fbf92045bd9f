// One of two processes that processes.test.ts races on one database: it waits for `go` on stdin,
// then tries to settle every pending confirmation `confirm:0..N-1` by compare-and-set over the
// version it reads, and prints the keys it won.
// Run: node --import tsx packages/stores/postgres/test/race-child.ts  (env: PG_PORT, SCHEMA, COUNT, ME)
// stdout: READY, then RESULT <json array of the keys won>.
import { createInterface } from 'node:readline';
import pg from 'pg';
import { createPostgresStore } from '../src/index.js';

const pool = new pg.Pool({ host: '127.0.0.1', port: Number(process.env.PG_PORT), user: 'postgres', max: 4 });
const store = createPostgresStore({ db: pool, schema: String(process.env.SCHEMA), migrate: false });
const count = Number(process.env.COUNT);
const me = String(process.env.ME);

await store.get('warm-up'); // the connection is open before the race starts
process.stdout.write('READY\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'go') break;
}
const won: string[] = [];
await Promise.all(
  [0, 1, 2, 3].map(async (lane) => {
    for (let i = lane; i < count; i += 4) {
      const key = `confirm:${i}`;
      const entry = await store.getEntry(key);
      if (entry === undefined || (entry.value as { state: string }).state !== 'pending') continue;
      const result = await store.compareAndSet(key, entry.version, { state: 'approved', by: me });
      if (result.ok) won.push(key);
    }
  }),
);
process.stdout.write(`RESULT ${JSON.stringify(won)}\n`);
await store.close();
await pool.end();
