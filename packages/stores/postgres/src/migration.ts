import { PostgresStoreError } from './errors.js';

/**
 * The format of the table this release writes, recorded as the table's comment
 * (`parley-store format 1`) so a later release can tell which layout it finds and upgrade it in
 * place.
 *
 * @example
 * ```ts
 * import { STORE_FORMAT } from '@parley/postgres';
 *
 * console.log(STORE_FORMAT); // 1
 * ```
 */
export const STORE_FORMAT = 1;

/**
 * The schema the store's table lives in unless `schema` says otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_SCHEMA } from '@parley/postgres';
 *
 * console.log(DEFAULT_SCHEMA); // parley
 * ```
 */
export const DEFAULT_SCHEMA = 'parley';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;
/** The SQLSTATE the migration raises when it finds a table of another format. */
export const FORMAT_SQLSTATE = 'PSF01';

/** Names of everything one store schema holds. */
export interface Names {
  readonly schema: string;
  /** `"schema".store_entries` */
  readonly table: string;
  /** `"schema".store_versions`, quoted for nextval */
  readonly sequence: string;
  /** The LISTEN/NOTIFY channel of this schema. */
  readonly channel: string;
}

export function namesOf(schema: string): Names {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new PostgresStoreError(
      'invalid_argument',
      `schema must be a lowercase SQL name (letters, digits, _; at most 40), got ${JSON.stringify(schema)}`,
      { details: { schema: String(schema) } },
    );
  }
  return {
    schema,
    table: `"${schema}".store_entries`,
    sequence: `'"${schema}".store_versions'`,
    channel: `parley_store_${schema}`,
  };
}

/**
 * The SQL that creates (or checks) the store's table in `schema`: one script, safe to run any
 * number of times and from several processes at once, that changes nothing when the table is
 * already there.
 *
 * Use it to run the migration from your own tool (a DBA, Flyway, a deploy step) and create stores
 * with `migrate: false`. It takes a transaction-level advisory lock, creates the schema, the
 * `store_entries` table (`key text COLLATE "C"` primary key, so prefix ranges use the index), an
 * index on `expires_at` for the sweep and the `store_versions` sequence, and records the format in
 * the table's comment. A table that carries another format's comment is left untouched and the
 * script fails with SQLSTATE `PSF01`.
 *
 * @throws PostgresStoreError `invalid_argument` for a schema that is not a lowercase SQL name.
 * @example
 * ```ts
 * import { postgresStoreMigration } from '@parley/postgres';
 *
 * const sql = postgresStoreMigration('billing_bot');
 * console.log(sql.includes('CREATE TABLE IF NOT EXISTS "billing_bot".store_entries')); // true
 * ```
 */
export function postgresStoreMigration(schema: string = DEFAULT_SCHEMA): string {
  const names = namesOf(schema);
  const marker = `parley-store format ${STORE_FORMAT}`;
  return `SELECT pg_advisory_xact_lock(hashtext('parley-store:${schema}'));
CREATE SCHEMA IF NOT EXISTS "${schema}";
DO $parley$
DECLARE found text;
BEGIN
  IF to_regclass('${names.table}') IS NOT NULL THEN
    found := coalesce(obj_description(to_regclass('${names.table}'), 'pg_class'), '');
    IF found <> '${marker}' THEN
      RAISE EXCEPTION 'parley-store: ${names.table} holds "%", not "${marker}"', found
        USING ERRCODE = '${FORMAT_SQLSTATE}';
    END IF;
  END IF;
END
$parley$;
CREATE TABLE IF NOT EXISTS ${names.table} (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL,
  version bigint NOT NULL CHECK (version > 0),
  expires_at bigint
);
CREATE INDEX IF NOT EXISTS store_entries_expires_at ON ${names.table} (expires_at) WHERE expires_at IS NOT NULL;
CREATE SEQUENCE IF NOT EXISTS "${schema}".store_versions;
COMMENT ON TABLE ${names.table} IS '${marker}';
`;
}
