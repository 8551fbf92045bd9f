import { PostgresStoreError } from './errors.js';
import { FORMAT_SQLSTATE } from './migration.js';

/** Facts about the call that its error carries: the store key, or the listed prefix. */
export type Details = Readonly<Record<string, string | boolean>>;

/** Five characters; Node's own codes (`EPIPE`) start with E, which no SQLSTATE class does. */
const SQLSTATE = /^[0-9A-DF-Z][0-9A-Z]{4}$/;
/** Driver errors raised before anything was sent: the connection was never made. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether the server rolled the statement back for a conflict, so running it again is safe. */
export function isRetryable(error: unknown): boolean {
  const code = sqlstateOf(error);
  return code === '40001' || code === '40P01';
}

/**
 * Maps what `pg` or PGlite threw to the store's typed error. A server error (a SQLSTATE) means the
 * statement was refused and rolled back; anything else from the driver means the transport failed,
 * and a statement that was sent may or may not have committed.
 */
export function toStoreError(error: unknown, details: Details): PostgresStoreError {
  if (error instanceof PostgresStoreError) return error;
  const sqlstate = sqlstateOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (sqlstate === undefined) {
    const sent = !(NOT_SENT.has(codeOf(error) ?? '') || /trying to connect|after calling end/.test(message));
    return new PostgresStoreError('connection_lost', `The Postgres connection failed: ${message}`, {
      details: { ...details, sent },
      cause: error,
    });
  }
  const withCode = { ...details, sqlstate };
  if (sqlstate.startsWith('08') || sqlstate.startsWith('57P')) {
    // 57P03 (cannot connect now) is refused before any statement; the others drop a session.
    return new PostgresStoreError('connection_lost', `The Postgres connection failed: ${message}`, {
      details: { ...withCode, sent: !['57P03', '08001', '08004'].includes(sqlstate) },
      cause: error,
    });
  }
  if (sqlstate === '57014' || sqlstate === '55P03') {
    return new PostgresStoreError('statement_timeout', `Postgres cancelled the statement: ${message}`, {
      details: withCode,
      cause: error,
    });
  }
  if (sqlstate === '40001' || sqlstate === '40P01') {
    return new PostgresStoreError('serialization_failure', `Postgres refused the write: ${message}`, {
      details: withCode,
      cause: error,
    });
  }
  if (sqlstate === FORMAT_SQLSTATE) {
    return new PostgresStoreError('unsupported_format', message, { details: withCode, cause: error });
  }
  return new PostgresStoreError('query_failed', `Postgres refused the statement: ${message}`, {
    details: withCode,
    cause: error,
  });
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function sqlstateOf(error: unknown): string | undefined {
  const code = codeOf(error);
  return code !== undefined && SQLSTATE.test(code) ? code : undefined;
}
