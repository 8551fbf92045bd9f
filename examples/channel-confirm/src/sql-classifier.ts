// A small, conservative SQL classifier. It decides one thing: may this text run at once, or must a
// person confirm it first? Only a single statement that is clearly a read runs at once; anything
// else (several statements, a write hidden in a CTE, SELECT … INTO, an unknown keyword, a function
// with side effects, an unterminated string or comment) needs confirmation. It errs towards asking:
// a read that merely *looks* unusual (a column called "comment") is asked about too.
//
// It is not a parser and not the only guard: reads also run inside a READ ONLY transaction
// (database.ts), so anything it mistakes for a read is refused by Postgres itself.

/** What a statement does, from the point of view of confirmation. */
export type SqlKind = 'read' | 'dml' | 'ddl' | 'other';

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
   * RESET, DISCARD…): the tool refuses these, since each call runs in a transaction of its own and
   * a session setting would outlive the call.
   */
  readonly controlsSession: boolean;
  /** Why, in a few words, for the prompt and the transcript. */
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
 * Classifies SQL text for the confirmation decision. Pure and synchronous.
 *
 * `classifySql('SELECT * FROM orders')` is a read that runs at once;
 * `classifySql('WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d')` is DML that waits.
 */
export function classifySql(sql: string): SqlClassification {
  const scanned = scan(sql);
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

type ScanResult =
  | { readonly ok: true; readonly statements: readonly (readonly string[])[] }
  | { readonly ok: false; readonly problem: string };

/**
 * Splits SQL into statements of lower-cased bare words, skipping what Postgres does not read as
 * keywords: string constants ('…', E'…' with backslash escapes, $tag$…$tag$), quoted identifiers
 * ("…") and comments (-- to end of line, nested /* … *\/). Anything unterminated is a problem.
 */
function scan(sql: string): ScanResult {
  const statements: string[][] = [];
  let words: string[] = [];
  let i = 0;
  const n = sql.length;
  const endStatement = (): void => {
    if (words.length > 0) statements.push(words);
    words = [];
  };
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      const end = skipBlockComment(sql, i);
      if (end === undefined) return { ok: false, problem: 'an unterminated /* comment */' };
      i = end;
    } else if (c === "'") {
      const end = skipQuoted(sql, i, "'", false);
      if (end === undefined) return { ok: false, problem: 'an unterminated string' };
      i = end;
    } else if (c === '"') {
      const end = skipQuoted(sql, i, '"', false);
      if (end === undefined) return { ok: false, problem: 'an unterminated quoted identifier' };
      i = end;
    } else if (c === '$' && DOLLAR_TAG.test(sql.slice(i, i + 66))) {
      const tag = (sql.slice(i).match(DOLLAR_TAG) as RegExpMatchArray)[0];
      const end = sql.indexOf(tag, i + tag.length);
      if (end === -1) return { ok: false, problem: 'an unterminated $$ string' };
      i = end + tag.length;
    } else if (c === ';') {
      endStatement();
      i++;
    } else if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < n && WORD_PART.test(sql[j] as string)) j++;
      const word = sql.slice(i, j).toLowerCase();
      if (word === 'e' && sql[j] === "'") {
        const end = skipQuoted(sql, j, "'", true);
        if (end === undefined) return { ok: false, problem: 'an unterminated string' };
        i = end;
      } else {
        words.push(word);
        i = j;
      }
    } else {
      i++;
    }
  }
  endStatement();
  return { ok: true, statements };
}

const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;
const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** The index after a quoted run starting at `start`; a doubled quote is an escaped quote. */
function skipQuoted(
  sql: string,
  start: number,
  quote: string,
  backslashEscapes: boolean,
): number | undefined {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  return undefined;
}

/** The index after a block comment starting at `start`; Postgres nests them. */
function skipBlockComment(sql: string, start: number): number | undefined {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return undefined;
}
