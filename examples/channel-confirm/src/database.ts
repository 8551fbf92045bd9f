// The real embedded database: PGlite (Postgres compiled to WebAssembly). One instance holds the
// `orders` table the agent works on. Reads run in a READ ONLY transaction through the extended
// protocol (one statement only), so even a read the classifier got wrong cannot change anything;
// confirmed writes run in a transaction of their own and roll back as a whole on any error.
import { PGlite } from '@electric-sql/pglite';

/** The shop's database: one PGlite (tests share one per file). */
export type SqlDatabase = PGlite;

export interface OrderRow {
  readonly id: number;
  readonly customer: string;
  readonly status: string;
  readonly amount: string;
}

/** What the shop looks like: the rows and the indexes of `orders`. */
export interface ShopState {
  readonly orders: readonly OrderRow[];
  readonly indexes: readonly string[];
}

/** What `data_modify` returns to the model. */
export interface SqlResult {
  readonly mode: 'read' | 'write';
  /** The command of the (last) statement, e.g. `SELECT`, `DELETE`, `CREATE`. */
  readonly command: string;
  /** Rows returned (reads) or changed (writes, summed over statements). */
  readonly rowCount: number;
  /** At most {@link MAX_ROWS_RETURNED} rows, for reads. */
  readonly rows: readonly Record<string, unknown>[];
}

export const MAX_ROWS_RETURNED = 50;

export const SEED_ORDERS: readonly OrderRow[] = [
  { id: 1, customer: '华东仓', status: 'paid', amount: '120.00' },
  { id: 2, customer: '华南仓', status: 'open', amount: '80.50' },
  { id: 3, customer: '西北仓', status: 'cancelled', amount: '45.00' },
  { id: 4, customer: '华北仓', status: 'open', amount: '300.00' },
];

/** Starts an in-memory PGlite (a few seconds: the WebAssembly module is compiled and initdb runs). */
export async function openDatabase(): Promise<PGlite> {
  return PGlite.create();
}

/** Gives the database a fresh `shop` schema with the seed orders (one per scenario). */
export async function resetShop(db: SqlDatabase): Promise<void> {
  const values = SEED_ORDERS.map(
    (row) => `(${row.id}, '${row.customer}', '${row.status}', ${row.amount})`, // constants above
  ).join(', ');
  await db.exec(`
    DROP SCHEMA IF EXISTS shop CASCADE;
    CREATE SCHEMA shop;
    SET search_path TO shop, public;
    CREATE TABLE orders (
      id integer PRIMARY KEY,
      customer text NOT NULL,
      status text NOT NULL CHECK (status IN ('open', 'paid', 'cancelled')),
      amount numeric(10, 2) NOT NULL
    );
    INSERT INTO orders (id, customer, status, amount) VALUES ${values};
  `);
}

/** Reads the shop as it really is, for the transcript and the test. */
export async function readShop(db: SqlDatabase): Promise<ShopState> {
  const orders = await db.query<OrderRow>(
    'SELECT id, customer, status, amount::text AS amount FROM shop.orders ORDER BY id',
  );
  const indexes = await db.query<{ indexname: string }>(
    "SELECT indexname FROM pg_indexes WHERE schemaname = 'shop' AND tablename = 'orders' ORDER BY indexname",
  );
  return {
    orders: orders.rows.map((row) => ({ ...row })),
    indexes: indexes.rows.map((row) => row.indexname),
  };
}

/**
 * Runs SQL. `read`: one statement, in a READ ONLY transaction (Postgres refuses any write, DDL,
 * `nextval()` or SELECT … INTO there, and the extended protocol refuses a second statement).
 * `write`: the whole text (several statements allowed) in one transaction, rolled back on error.
 * Throws Postgres's error as is.
 */
export async function runSql(db: SqlDatabase, sql: string, mode: 'read' | 'write'): Promise<SqlResult> {
  if (mode === 'read') {
    return db.transaction(async (tx) => {
      await tx.exec('SET TRANSACTION READ ONLY');
      const result = await tx.query<Record<string, unknown>>(sql);
      return {
        mode,
        command: result.command ?? 'SELECT',
        rowCount: result.rows.length,
        rows: result.rows.slice(0, MAX_ROWS_RETURNED),
      };
    });
  }
  return db.transaction(async (tx) => {
    const results = await tx.exec(sql);
    const last = results.at(-1);
    return {
      mode,
      command: last?.command ?? 'OK',
      rowCount: last?.affectedRows ?? 0, // PGlite's affectedRows is cumulative over the statements
      rows: [],
    };
  });
}

/** One line per order, for the transcript: `#1 华东仓 paid 120.00`. */
export function formatShop(state: ShopState): string {
  const rows = state.orders.map((row) => `#${row.id} ${row.customer} ${row.status} ${row.amount}`);
  const extraIndexes = state.indexes.filter((name) => name !== 'orders_pkey');
  return [
    `orders: ${rows.join(' · ') || '(empty)'}`,
    ...(extraIndexes.length === 0 ? [] : [`indexes: ${extraIndexes.join(', ')}`]),
  ].join('  |  ');
}
