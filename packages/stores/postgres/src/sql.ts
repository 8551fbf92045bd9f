import type { Names } from './migration.js';

/**
 * Every statement the store runs, for one schema. Each write is one statement (so one implicit
 * transaction) that also NOTIFYs the change: the write and its notification commit together.
 * `live($n)` is the read-time expiry rule: a row whose `expires_at` is not after `$n` is absent.
 */
export interface Statements {
  /** $1 key → value, version, expires_at of the live row */
  readonly read: string;
  /** $1 key, $2 json, $3 expires_at | null → version */
  readonly set: string;
  /** $1 key, $2 json, $3 expires_at | null, $4 now → version, when absent or expired */
  readonly create: string;
  /** $1 key, $2 json, $3 expires_at | null, $4 now, $5 expected version → version */
  readonly replace: string;
  /** $1 key, $2 now → version, live (a row was there; live says whether it had not expired) */
  readonly delete: string;
  /** $1 key, $2 now, $3 expected version → version */
  readonly deleteIf: string;
  /** $1 low, $2 high, $3 now, $4 page size → rows in key order */
  readonly firstPage: string;
  /** $1 low, $2 high, $3 now, $4 page size, $5 after key → rows in key order */
  readonly nextPage: string;
  /** $1 now, $2 limit → one row per expired key deleted */
  readonly sweep: string;
}

export function statementsFor(names: Names): Statements {
  const { table, sequence } = names;
  const live = (now: string): string => `(expires_at IS NULL OR expires_at > ${now})`;
  const notify = (kind: string, version: string): string =>
    `pg_notify('${names.channel}', ${kind} || '|' || ${version} || '|' || $1::text)`;
  const page = (after: string): string =>
    `SELECT key, value, version, expires_at FROM ${table}
     WHERE key >= $1::text AND key < $2::text${after} AND ${live('$3::bigint')}
     ORDER BY key LIMIT $4::int`;
  const upsert = (condition: string): string =>
    `WITH w AS (
       INSERT INTO ${table} AS t (key, value, version, expires_at)
       VALUES ($1::text, $2::text, nextval(${sequence}), $3::bigint)
       ON CONFLICT (key) DO UPDATE
         SET value = EXCLUDED.value, version = nextval(${sequence}), expires_at = EXCLUDED.expires_at
         ${condition}
       RETURNING version)
     SELECT version, ${notify("'s'", 'version')} FROM w`;
  return {
    read: `SELECT value, version, expires_at FROM ${table} WHERE key = $1::text AND ${live('$2::bigint')}`,
    // The version is drawn after the row lock (ON CONFLICT DO UPDATE, UPDATE), so the later of two
    // writers of one key always gets the higher version, and a version is never drawn twice.
    set: upsert(''),
    create: upsert('WHERE t.expires_at IS NOT NULL AND t.expires_at <= $4::bigint'),
    replace: `WITH w AS (
       UPDATE ${table} SET value = $2::text, version = nextval(${sequence}), expires_at = $3::bigint
       WHERE key = $1::text AND version = $5::bigint AND ${live('$4::bigint')}
       RETURNING version)
     SELECT version, ${notify("'s'", 'version')} FROM w`,
    delete: `WITH d AS (
       DELETE FROM ${table} WHERE key = $1::text
       RETURNING version, ${live('$2::bigint')} AS live)
     SELECT version, live, ${notify("CASE WHEN live THEN 'd' ELSE 'x' END", "''")} FROM d`,
    deleteIf: `WITH d AS (
       DELETE FROM ${table} WHERE key = $1::text AND version = $3::bigint AND ${live('$2::bigint')}
       RETURNING version)
     SELECT version, ${notify("'d'", "''")} FROM d`,
    firstPage: page(''),
    nextPage: page(' AND key > $5::text'),
    sweep: `WITH doomed AS (
       SELECT key FROM ${table} WHERE expires_at <= $1::bigint
       ORDER BY expires_at LIMIT $2::int FOR UPDATE SKIP LOCKED),
     d AS (
       DELETE FROM ${table} AS t USING doomed
       WHERE t.key = doomed.key AND t.expires_at <= $1::bigint
       RETURNING t.key)
     SELECT pg_notify('${names.channel}', 'x||' || d.key) FROM d`,
  };
}
