// The lexical half of `classifySql`: SQL text → statements of lower-cased bare words, skipping what
// Postgres does not read as keywords. Not a parser: it only has to find keywords and `;` reliably.

/** Statements of bare words, or why the text could not be split. */
export type ScanResult =
  | { readonly ok: true; readonly statements: readonly (readonly string[])[] }
  | { readonly ok: false; readonly problem: string };

/**
 * Splits SQL into statements of lower-cased bare words, skipping what Postgres does not read as
 * keywords: string constants ('…', E'…' with backslash escapes, $tag$…$tag$), quoted identifiers
 * ("…") and comments (-- to end of line, nested /* … *\/). Anything unterminated is a problem.
 */
export function scanSql(sql: string): ScanResult {
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
