// The Postgres half of "Which store": the replicas of the Redis guide on a database the host already
// runs. `twoReplicas` (from the Redis guide) takes any two Store handles on the same data, so the
// same scenario runs here on two stores sharing one schema.
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { Clock } from '@parley/core';
// #region postgres
import { createPostgresStore, type PostgresStore } from '@parley/postgres';
import pg from 'pg';

/**
 * One store per replica: on your PostgreSQL, each replica's own pool (the store takes one of its
 * connections for LISTEN); embedded, a PGlite database (in one process only: PGlite is not shared
 * between processes).
 */
export function replicaStore(db: pg.Pool | PGlite, clock?: Clock): PostgresStore {
  return createPostgresStore({ db, schema: 'support_bot', clock }); // creates its table on first use
}

export function connectPool(url = process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres'): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {}); // an idle connection dropped: the next query makes a new one
  return pool;
}
// #endregion postgres

/** Runs the Redis guide's scenario on two Postgres stores: two pools on `url`, or one PGlite. */
export async function main(url?: string, clock?: Clock): Promise<string[]> {
  const { twoReplicas } = await import('./redis-replicas.js');
  if (url === undefined) {
    const db = new PGlite();
    const stores = [replicaStore(db, clock), replicaStore(db, clock)] as const;
    try {
      return await twoReplicas(stores, clock);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await db.close();
    }
  }
  const pools = [connectPool(url), connectPool(url)] as const;
  const stores = [replicaStore(pools[0], clock), replicaStore(pools[1], clock)] as const;
  try {
    return await twoReplicas(stores, clock);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(pools.map((pool) => pool.end()));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main(process.argv[2])) console.log(line);
}
