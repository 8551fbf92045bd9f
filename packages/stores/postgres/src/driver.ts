import { PostgresStoreError } from './errors.js';

/**
 * What the store needs of a `pg` `Pool` or `Client`: the subset of their API it calls, so any
 * version of `pg` (and a wrapper with the same shape) fits without `pg` being a runtime import.
 *
 * @example
 * ```ts
 * import type { PgQueryable } from '@parley/postgres';
 *
 * const fake: PgQueryable = { query: async () => ({ rows: [] }) };
 * ```
 */
export interface PgQueryable {
  /** Runs one statement (with `values`: extended protocol; without: a script in one transaction). */
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A pg `Pool`: it can lend a dedicated connection for LISTEN. */
interface PgPoolLike extends PgQueryable {
  readonly totalCount: number;
  connect(): Promise<PgListenClient>;
}

/** A connection that can LISTEN: a pg `Client`, or a `PoolClient` lent by a pool. */
interface PgListenClient extends PgQueryable {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  release?(error?: Error | boolean): void;
}

/**
 * What the store needs of a PGlite instance (`@electric-sql/pglite`): queries, a script runner and
 * `listen`.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import type { PGliteLike } from '@parley/postgres';
 *
 * const db: PGliteLike = new PGlite();
 * await db.close();
 * ```
 */
export interface PGliteLike {
  /** Runs one parameterised statement. */
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** Runs a script of statements (the migration). */
  exec(text: string): Promise<unknown>;
  /** LISTENs on `channel`; resolves to a function that UNLISTENs. */
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  /** Whether `close()` was called. */
  readonly closed: boolean;
}

/** A subscription to one channel on a dedicated connection. */
export interface Listening {
  /** Stops listening; the connection goes back to its owner. */
  stop(): void;
}

export interface ListenHooks {
  onPayload(payload: string): void;
  /** The connection dropped: nothing is heard until a new `listen` succeeds. */
  onLost(error: unknown): void;
}

/** The one interface the store runs on, whatever the host handed it. */
export interface Db {
  readonly kind: 'pool' | 'client' | 'pglite';
  /** Runs one parameterised statement and returns its rows. */
  rows(text: string, values: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a script of statements without parameters, in one implicit transaction. */
  script(text: string): Promise<void>;
  /**
   * LISTENs on `channel` on a dedicated connection; resolves once the server confirmed it. A
   * failure to start rejects (and `onLost` is not called); a drop after that calls `onLost` once.
   */
  listen(channel: string, hooks: ListenHooks): Promise<Listening>;
  /** Whether a lost listener can ever come back (a pool lends a new connection; a Client cannot). */
  readonly canReconnect: boolean;
}

export function toDb(handle: PgQueryable | PGliteLike): Db {
  if (isPGlite(handle)) return pgliteDb(handle);
  if (isPool(handle)) return pgDb(handle, 'pool');
  return pgDb(handle as PgListenClient, 'client'); // a pg Client: queries and LISTEN on one connection
}

function isPGlite(handle: unknown): handle is PGliteLike {
  const db = handle as Partial<PGliteLike>;
  return typeof db.listen === 'function' && typeof db.exec === 'function';
}

function isPool(handle: unknown): handle is PgPoolLike {
  return typeof (handle as Partial<PgPoolLike>).totalCount === 'number';
}

function pgDb(handle: PgPoolLike | PgListenClient, kind: 'pool' | 'client'): Db {
  return {
    kind,
    canReconnect: kind === 'pool',
    async rows(text, values) {
      const result = await handle.query(text, [...values]);
      return result.rows as Record<string, unknown>[];
    },
    async script(text) {
      await handle.query(text); // no parameters: the simple protocol, one implicit transaction
    },
    async listen(channel, hooks) {
      const client = kind === 'pool' ? await (handle as PgPoolLike).connect() : (handle as PgListenClient);
      let stopped = false;
      const onNotification = (message: { channel: string; payload?: string }): void => {
        if (!stopped && message.channel === channel) hooks.onPayload(String(message.payload));
      };
      const onGone = (error?: unknown): void => {
        if (stopped) return;
        stopped = true;
        // A broken connection lent by the pool is destroyed; a host's own Client stays the host's.
        if (kind === 'pool') client.release?.(error instanceof Error ? error : true);
        hooks.onLost(error);
      };
      client.on('notification', onNotification);
      client.on('error', onGone);
      client.on('end', onGone);
      try {
        await client.query(`LISTEN "${channel}"`);
      } catch (error) {
        stopped = true; // the caller hears of it from the rejection, not from onLost
        if (kind === 'pool') client.release?.(error instanceof Error ? error : true);
        throw error;
      }
      return {
        stop() {
          if (stopped) return;
          stopped = true;
          client.removeListener('notification', onNotification);
          client.removeListener('end', onGone);
          if (kind === 'pool') {
            // A lent connection is destroyed rather than returned still listening; an error it
            // raises while closing is nobody's business any more.
            client.removeListener('error', onGone);
            client.on('error', () => {});
            client.release?.(true);
          } else {
            client.removeListener('error', onGone);
            client.query(`UNLISTEN "${channel}"`).catch(() => {});
          }
        },
      };
    },
  };
}

function pgliteDb(db: PGliteLike): Db {
  const closed = (): PostgresStoreError =>
    new PostgresStoreError('connection_lost', 'The PGlite database is closed', { details: { sent: false } });
  return {
    kind: 'pglite',
    canReconnect: false,
    async rows(text, values) {
      if (db.closed) throw closed();
      const result = await db.query(text, [...values]);
      return result.rows as Record<string, unknown>[];
    },
    async script(text) {
      if (db.closed) throw closed();
      await db.exec(text);
    },
    async listen(channel, hooks) {
      if (db.closed) throw closed();
      const unlisten = await db.listen(channel, (payload) => hooks.onPayload(payload));
      return {
        stop() {
          if (!db.closed) unlisten().catch(() => {});
        },
      };
    },
  };
}
