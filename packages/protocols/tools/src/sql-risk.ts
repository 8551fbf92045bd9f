// What a SQL text risks, for a tool that runs SQL: may it run at once, or must a person confirm it
// first? Conservative on purpose: only one statement that is clearly a read runs at once; anything
// else (several statements, a write hidden in a CTE, SELECT … INTO, an unknown keyword, a function
// with side effects, an unterminated string or comment) needs confirmation.
import { ToolsError } from './errors.js';
import { scanSql } from './internal/sql-scan.js';

/**
 * What a SQL text does, from the point of view of confirmation: `read`, `dml` (rows change),
 * `ddl` (the schema or permissions change) or `other` (session control, unknown commands, several
 * statements of reads, text that could not be read).
 *
 * @example
 * ```ts
 * import { classifySql, type SqlKind } from '@parley/tools';
 *
 * const kind: SqlKind = classifySql('TRUNCATE orders').kind;
 * console.log(kind); // ddl
 * ```
 */
export type SqlKind = 'read' | 'dml' | 'ddl' | 'other';

/**
 * What {@link classifySql} found in a SQL text.
 *
 * @example
 * ```ts
 * import { classifySql, type SqlClassification } from '@parley/tools';
 *
 * const found: SqlClassification = classifySql('SELECT 1; DELETE FROM orders');
 * console.log(found.statements, found.commands, found.needsConfirmation); // 2 [ 'SELECT', 'DELETE' ] true
 * ```
 */
export interface SqlClassification {
  readonly kind: SqlKind;
  /** Everything except a single clear read. */
  readonly needsConfirmation: boolean;
  /** Non-empty statements (text between `;` outside strings, identifiers and comments). */
  readonly statements: number;
  /** The first keyword of each statement, upper case (e.g. `['WITH']`). */
  readonly commands: readonly string[];
  /**
   * A statement controls the transaction or the session (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, SET,
   * RESET, DISCARD…). A tool that runs each call in a transaction of its own should refuse these
   * (a policy), since a session setting would outlive the call.
   */
  readonly controlsSession: boolean;
  /** Why, in a few words, for a confirmation prompt or a log. */
  readonly reason: string;
}

const READ_STARTS = new Set(['select', 'with', 'values', 'table', 'show', 'explain']);
const DML_WORDS = new Set(['insert', 'update', 'delete', 'merge', 'copy', 'upsert']);
const DDL_WORDS = new Set([
  'create',
  'alter',
  'drop',
  'truncate',
  'comment',
  'grant',
  'revoke',
  'reindex',
  'cluster',
  'vacuum',
  'refresh',
  'security',
  'import',
  'into', // SELECT … INTO new_table creates a table
]);
const SESSION_WORDS = new Set([
  'set',
  'reset',
  'discard',
  'begin',
  'start',
  'commit',
  'end',
  'rollback',
  'abort',
  'savepoint',
  'release',
  'prepare',
]);
/**
 * Words that make a would-be read do something else (lock, call, change session state…). Not
 * `end`, `start` or `release`: CASE … END and columns named `start` are common in reads, and as a
 * statement's first word they are caught by {@link SESSION_WORDS}.
 */
const OTHER_WRITE_WORDS = new Set([
  'set',
  'reset',
  'discard',
  'begin',
  'commit',
  'rollback',
  'abort',
  'savepoint',
  'prepare',
  'lock',
  'share', // FOR SHARE
  'call',
  'do',
  'execute',
  'listen',
  'notify',
  'unlisten',
  'load',
  'checkpoint',
]);
/** Functions a SELECT can call that change something or reach outside the database. */
const SIDE_EFFECT_FUNCTIONS =
  /^(nextval|setval|set_config|pg_notify|pg_sleep\w*|pg_advisory\w*|pg_try_advisory\w*|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_switch_wal|pg_read_file|pg_read_binary_file|pg_ls_dir|pg_stat_file|pg_create_\w+|pg_drop_\w+|pg_logical_emit_message|pg_promote|lo_\w+|dblink\w*|txid_current)$/;

/**
 * Classifies SQL text (PostgreSQL's lexical rules) for the confirmation decision: pure,
 * synchronous, linear in the text's length.
 *
 * Use it in a SQL tool's `confirm` predicate (ask unless it is one clear read) and in a policy that
 * refuses session control. It reads SQL as Postgres does, not with patterns over the raw text:
 * `-- …` and nested `/* … *\/` comments, standard `'…'` strings (a backslash does not escape),
 * `E'…'` strings, `$tag$…$tag$` strings and `"quoted identifiers"` are skipped, so keywords inside
 * them never count. Where it is unsure it sees more statements or more writes, never fewer: it may
 * ask about a harmless read (a column named `comment`), but never calls a write a read. It decides
 * only whether to ask: run reads in a READ ONLY transaction as well, so a write it missed (a
 * user-defined function that writes) is refused by the database.
 *
 * @throws ToolsError `invalid_argument` when `sql` is not a string.
 * @example
 * ```ts
 * import { classifySql } from '@parley/tools';
 *
 * console.log(classifySql('SELECT * FROM orders').needsConfirmation); // false
 * const hidden = classifySql('WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d');
 * console.log(hidden.kind, hidden.needsConfirmation, hidden.reason); // dml true contains DELETE
 * console.log(classifySql("SELECT 'DROP TABLE orders'").kind); // read
 * console.log(classifySql('SET search_path TO x').controlsSession); // true
 * ```
 */
export function classifySql(sql: string): SqlClassification {
  if (typeof sql !== 'string') throw new ToolsError('invalid_argument', 'sql must be a string');
  const scanned = scanSql(sql);
  if (!scanned.ok) return other(scanned.problem);
  const statements = scanned.statements;
  if (statements.length === 0) return other('no statement');
  const commands = statements.map((words) => (words[0] ?? '?').toUpperCase());
  const controlsSession = statements.some((words) => SESSION_WORDS.has(words[0] ?? ''));
  const kinds = statements.map(classifyStatement);
  if (statements.length > 1) {
    const worst = kinds.reduce((a, b) => (SEVERITY[b.kind] > SEVERITY[a.kind] ? b : a));
    return {
      kind: worst.kind === 'read' ? 'other' : worst.kind,
      needsConfirmation: true,
      statements: statements.length,
      commands,
      controlsSession,
      reason: `${statements.length} statements in one call (${commands.join(', ')})`,
    };
  }
  const only = kinds[0] as { kind: SqlKind; reason: string }; // exactly one statement here
  return {
    kind: only.kind,
    needsConfirmation: only.kind !== 'read',
    statements: 1,
    commands,
    controlsSession,
    reason: only.reason,
  };
}

const SEVERITY: Readonly<Record<SqlKind, number>> = { read: 0, dml: 1, ddl: 2, other: 3 };

function other(reason: string): SqlClassification {
  return {
    kind: 'other',
    needsConfirmation: true,
    statements: 0,
    commands: [],
    controlsSession: false,
    reason,
  };
}

function classifyStatement(words: readonly string[]): { kind: SqlKind; reason: string } {
  const first = words[0] as string; // statements are non-empty
  const command = first.toUpperCase();
  if (DML_WORDS.has(first)) return { kind: 'dml', reason: `${command} changes rows` };
  if (DDL_WORDS.has(first)) return { kind: 'ddl', reason: `${command} changes the schema or permissions` };
  if (SESSION_WORDS.has(first))
    return { kind: 'other', reason: `${command} controls the transaction or session` };
  if (!READ_STARTS.has(first)) return { kind: 'other', reason: `${command} is not a known read` };
  // A would-be read: any word that writes, anywhere in it, makes it something else.
  let found: { kind: SqlKind; reason: string } | undefined;
  for (const word of words) {
    const hit = writeWordKind(word);
    if (hit === undefined) continue;
    if (found === undefined || SEVERITY[hit.kind] > SEVERITY[found.kind]) found = hit;
  }
  return found ?? { kind: 'read', reason: `a single ${command} that only reads` };
}

function writeWordKind(word: string): { kind: SqlKind; reason: string } | undefined {
  const shown = word.toUpperCase();
  if (word === 'into') return { kind: 'ddl', reason: 'SELECT … INTO creates a table' };
  if (DML_WORDS.has(word)) return { kind: 'dml', reason: `contains ${shown}` };
  if (DDL_WORDS.has(word)) return { kind: 'ddl', reason: `contains ${shown}` };
  if (OTHER_WRITE_WORDS.has(word)) return { kind: 'other', reason: `contains ${shown}` };
  if (SIDE_EFFECT_FUNCTIONS.test(word))
    return { kind: 'other', reason: `calls ${word}(), which has side effects` };
  return undefined;
}
