import { type PGliteLike, type PgQueryable, toDb } from './driver.js';
import { toStoreError } from './failures.js';
import { DEFAULT_SCHEMA, postgresStoreMigration } from './migration.js';

/**
 * Runs the store's migration on `db` (see {@link postgresStoreMigration}): creates the schema,
 * table, index and sequence when missing and changes nothing when they are there.
 *
 * Use it in a deploy step, then create stores with `migrate: false`; a store created with the
 * default `migrate: true` runs it itself before its first call.
 *
 * @throws PostgresStoreError `unsupported_format` when the table was made by another format,
 * `query_failed` when the server refused (for example `42501`: no CREATE privilege on the
 * database), `connection_lost`, `invalid_argument` for a bad schema name.
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import { migratePostgresStore } from '@parley/postgres';
 *
 * const db = new PGlite();
 * await migratePostgresStore(db, { schema: 'billing_bot' });
 * await migratePostgresStore(db, { schema: 'billing_bot' }); // again: nothing changes
 * console.log((await db.query('SELECT count(*)::int AS n FROM billing_bot.store_entries')).rows); // [{ n: 0 }]
 * await db.close();
 * ```
 */
export async function migratePostgresStore(
  db: PgQueryable | PGliteLike,
  options: { readonly schema?: string } = {},
): Promise<void> {
  const script = postgresStoreMigration(options.schema ?? DEFAULT_SCHEMA);
  try {
    await toDb(db).script(script);
  } catch (error) {
    throw toStoreError(error, { schema: options.schema ?? DEFAULT_SCHEMA });
  }
}
