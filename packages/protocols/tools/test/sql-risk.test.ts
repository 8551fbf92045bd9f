import { describe, expect, it } from 'vitest';
import { classifySql } from '../src/index.js';

const kindOf = (sql: string) => classifySql(sql).kind;
const asks = (sql: string) => classifySql(sql).needsConfirmation;

describe('classifySql: single clear reads run at once', () => {
  it.each([
    'SELECT * FROM orders',
    "select id, customer from orders where status = 'open' order by id",
    '  SELECT 1;  ',
    'SELECT 1; -- a trailing comment is not a statement',
    'SELECT 1 /* ; DELETE FROM orders */',
    '/* leading */ SELECT 1',
    "WITH open AS (SELECT * FROM orders WHERE status = 'open') SELECT count(*) FROM open",
    'VALUES (1), (2)',
    'TABLE orders',
    'SHOW search_path',
    'EXPLAIN SELECT * FROM orders',
    'EXPLAIN ANALYZE SELECT * FROM orders',
    "SELECT CASE WHEN amount > 100 THEN 'big' ELSE 'small' END FROM orders",
    "SELECT 'DELETE FROM orders; DROP TABLE orders'",
    'SELECT "delete", "update" FROM audit',
    'SELECT $$; DELETE FROM orders;$$',
    'SELECT $tag$ $$ ; DROP TABLE orders $tag$',
    "SELECT E'it\\'s; DELETE FROM orders'",
    "SELECT 'it''s; DELETE FROM orders'",
    'SELECT updated_at, deleted_by FROM orders',
    'SELECT * FROM orders WHERE id = $1',
    'SELECT currval(pg_get_serial_sequence($1, $2))',
    'SELECT 1 /* nested /* comment */ still a comment; DROP TABLE orders */',
  ])('runs %j at once', (sql) => {
    const result = classifySql(sql);
    expect(result).toMatchObject({
      kind: 'read',
      needsConfirmation: false,
      statements: 1,
      controlsSession: false,
    });
  });
});

describe('classifySql: writes and anything unclear need confirmation', () => {
  it.each([
    ['DELETE FROM orders WHERE id = 3', 'dml', ['DELETE']],
    ["UPDATE orders SET status = 'paid' WHERE id = 2", 'dml', ['UPDATE']],
    ["INSERT INTO orders VALUES (5, 'x', 'open', 1)", 'dml', ['INSERT']],
    ['MERGE INTO orders o USING incoming i ON o.id = i.id WHEN MATCHED THEN DELETE', 'dml', ['MERGE']],
    ["COPY orders FROM '/tmp/orders.csv'", 'dml', ['COPY']],
    ['CREATE INDEX orders_customer_idx ON orders (customer)', 'ddl', ['CREATE']],
    ['ALTER TABLE orders ADD COLUMN note text', 'ddl', ['ALTER']],
    ['DROP TABLE orders', 'ddl', ['DROP']],
    ['TRUNCATE orders', 'ddl', ['TRUNCATE']],
    ['GRANT ALL ON orders TO public', 'ddl', ['GRANT']],
  ] as const)('asks about %j (%s)', (sql, kind, commands) => {
    expect(classifySql(sql)).toMatchObject({ kind, needsConfirmation: true, statements: 1, commands });
  });

  it('asks about a write hidden in a CTE', () => {
    const result = classifySql('WITH d AS (DELETE FROM orders WHERE id = 3 RETURNING *) SELECT * FROM d');
    expect(result).toMatchObject({ kind: 'dml', needsConfirmation: true, commands: ['WITH'] });
    expect(result.reason).toBe('contains DELETE');
  });

  it('asks about SELECT … INTO, which creates a table', () => {
    const result = classifySql('SELECT * INTO orders_backup FROM orders');
    expect(result).toMatchObject({ kind: 'ddl', needsConfirmation: true });
    expect(result.reason).toContain('INTO');
  });

  it('asks about EXPLAIN ANALYZE of a write, which runs it', () => {
    expect(classifySql('EXPLAIN ANALYZE DELETE FROM orders')).toMatchObject({
      kind: 'dml',
      needsConfirmation: true,
    });
  });

  it('asks about SELECT … FOR UPDATE / FOR SHARE, which take locks', () => {
    expect(asks('SELECT * FROM orders FOR UPDATE')).toBe(true);
    expect(kindOf('SELECT * FROM orders FOR SHARE')).toBe('other');
  });

  it.each([
    "SELECT nextval('orders_id_seq')",
    "SELECT setval('orders_id_seq', 1)",
    "SELECT set_config('search_path', 'evil', false)",
    'SELECT pg_advisory_lock(1)',
    'SELECT pg_terminate_backend(42)',
    "SELECT pg_read_file('/etc/passwd')",
    'SELECT lo_unlink(1234)',
    "SELECT dblink_exec('dbname=x', 'DROP TABLE orders')",
    'SELECT pg_sleep(3600)',
  ])('asks about %j, a function with side effects', (sql) => {
    const result = classifySql(sql);
    expect(result).toMatchObject({ kind: 'other', needsConfirmation: true });
    expect(result.reason).toMatch(/side effects/);
  });

  it.each([
    ['SELECT 1; SELECT 2', 'other', ['SELECT', 'SELECT']],
    ['SELECT * FROM orders; DELETE FROM orders', 'dml', ['SELECT', 'DELETE']],
    ['SELECT 1 /* comment */; DROP TABLE orders', 'ddl', ['SELECT', 'DROP']],
    ["SELECT 'a';DELETE FROM orders;--'", 'dml', ['SELECT', 'DELETE']],
    ['SELECT 1 -- comment\n; DELETE FROM orders', 'dml', ['SELECT', 'DELETE']],
    ['DELETE FROM orders; DO $$ BEGIN PERFORM 1; END $$', 'other', ['DELETE', 'DO']],
  ] as const)('asks about several statements: %j', (sql, kind, commands) => {
    expect(classifySql(sql)).toMatchObject({ kind, needsConfirmation: true, statements: 2, commands });
    expect(classifySql(sql).reason).toMatch(/^2 statements in one call/);
  });

  it('treats a standard string as ending at its quote, so a backslash cannot hide a statement', () => {
    // With standard_conforming_strings (the default), '\' is a complete string: DELETE runs.
    expect(classifySql("SELECT '\\'; DELETE FROM orders; --'")).toMatchObject({
      statements: 2,
      kind: 'dml',
      needsConfirmation: true,
    });
  });

  it('reads E-strings with backslash escapes, and errs towards more statements otherwise', () => {
    expect(classifySql("SELECT E'\\''").statements).toBe(1);
    expect(classifySql("SELECT e'\\\\'; DELETE FROM orders").statements).toBe(2);
  });

  it.each([
    ['CALL refresh_everything()', 'CALL'],
    ['DO $$ BEGIN DELETE FROM orders; END $$', 'DO'],
    ['LOCK TABLE orders', 'LOCK'],
    ['VACUUM orders', 'VACUUM'],
    ['NOTIFY orders_changed', 'NOTIFY'],
    ['LISTEN orders_changed', 'LISTEN'],
    ['FROBNICATE orders', 'FROBNICATE'],
    ['PREPARE q AS DELETE FROM orders', 'PREPARE'],
  ])('asks about %j (not a known read)', (sql, command) => {
    const result = classifySql(sql);
    expect(result.needsConfirmation).toBe(true);
    expect(result.kind).not.toBe('read');
    expect(result.commands).toEqual([command]);
  });

  it.each([
    ['', 'no statement'],
    ['   ;  ; ', 'no statement'],
    ['-- only a comment', 'no statement'],
    ["SELECT 'unterminated", 'an unterminated string'],
    ["SELECT E'unterminated\\'", 'an unterminated string'],
    ['SELECT "unterminated', 'an unterminated quoted identifier'],
    ['SELECT 1 /* unterminated', 'an unterminated /* comment */'],
    ['SELECT 1 /* /* nested, closed once */', 'an unterminated /* comment */'],
    ['SELECT $x$ unterminated', 'an unterminated $$ string'],
  ])('asks about %j (%s)', (sql, reason) => {
    expect(classifySql(sql)).toEqual({
      kind: 'other',
      needsConfirmation: true,
      statements: 0,
      commands: [],
      controlsSession: false,
      reason,
    });
  });

  it('asks about a statement that merely looks unusual (conservative by design)', () => {
    expect(asks('SELECT comment FROM notes')).toBe(true);
    expect(asks('SELECT * FROM orders o JOIN "into" i ON true')).toBe(false); // quoted: an identifier
  });
});

describe('classifySql: transaction and session control', () => {
  it.each([
    'BEGIN',
    'START TRANSACTION',
    'COMMIT',
    'END',
    'ROLLBACK',
    'ABORT',
    'SAVEPOINT s1',
    'RELEASE SAVEPOINT s1',
    "PREPARE TRANSACTION 'x'",
    "SET search_path TO 'evil'",
    'RESET ALL',
    'DISCARD ALL',
    'DELETE FROM orders; COMMIT',
  ])('flags %j', (sql) => {
    expect(classifySql(sql)).toMatchObject({ controlsSession: true, needsConfirmation: true });
  });

  it('does not flag SET inside an UPDATE', () => {
    expect(classifySql("UPDATE orders SET status = 'paid'").controlsSession).toBe(false);
  });

  it('flags a SET inside a would-be read as not a read', () => {
    expect(classifySql('SELECT 1 FROM orders WHERE true; SET x = 1')).toMatchObject({
      controlsSession: true,
    });
    expect(classifySql('EXPLAIN SET x = 1')).toMatchObject({ kind: 'other', controlsSession: false });
  });
});

describe('classifySql: misuse', () => {
  it('throws invalid_argument for text that is not a string', () => {
    expect(() => classifySql(42 as unknown as string)).toThrow(
      expect.objectContaining({ name: 'ToolsError', code: 'invalid_argument' }),
    );
  });
});
