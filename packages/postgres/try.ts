import { startPostgres } from './test/server.ts';
import { createPostgresStore } from './src/index.ts';
const s = await startPostgres();
for (let i = 0; i < 4; i++) {
  const pool = s.pool();
  let t = performance.now();
  const store = createPostgresStore({ db: pool, schema: `c_${i}` });
  await store.set('a', 1);
  console.log(i, 'first set', Math.round(performance.now() - t));
  t = performance.now();
  for (const v of [0, 1, 'x', null]) await store.set('k', v);
  console.log(i, '4 sets', Math.round(performance.now() - t));
  await store.close();
}
await s.stop();
