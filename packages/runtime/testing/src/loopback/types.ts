import type { Server } from 'node:http';

/**
 * One request the loopback server received, as recorded: method, path, query, headers (lower-case
 * names), the raw text and the parsed body (JSON for a JSON or empty content type that parses,
 * an object of fields for a form, the text otherwise, `undefined` when empty).
 *
 * @example
 * ```ts
 * import { sendRequest, startLoopbackServer, type LoopbackRequest } from '@parley/testing/loopback';
 *
 * const server = await startLoopbackServer({ routes: [{ path: '/ping', answer: () => ({ json: { ok: true } }) }] });
 * await sendRequest(`${server.url}/ping?x=1`, { body: '{"a":1}', headers: { 'content-type': 'application/json' } });
 * const first: LoopbackRequest | undefined = server.requests[0];
 * console.log(first?.path, first?.query, first?.body); // /ping { x: '1' } { a: 1 }
 * await server.close();
 * ```
 */
export interface LoopbackRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly text: string;
  readonly body: unknown;
  /** The capture groups of the route's `path` when it is a RegExp, else empty. */
  readonly params: readonly string[];
}

/**
 * What the server answers: JSON (`json`), plain text (`text`), or `{ drop: true }` to destroy the
 * connection without an answer (the client sees a network error). `status` defaults to 200.
 *
 * @example
 * ```ts
 * import type { LoopbackAnswer } from '@parley/testing/loopback';
 *
 * const refusal: LoopbackAnswer = { status: 401, json: { ok: false, error: 'invalid_auth' } };
 * const cut: LoopbackAnswer = { drop: true };
 * console.log(refusal.status, 'drop' in cut); // 401 true
 * ```
 */
export type LoopbackAnswer =
  | {
      readonly status?: number;
      readonly json: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly status?: number;
      readonly text: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly drop: true };

/**
 * What a route learns about the connection of a request it answers later (a held long poll).
 *
 * @example
 * ```ts
 * import type { LoopbackConnection } from '@parley/testing/loopback';
 *
 * const watch = (connection: LoopbackConnection): void => connection.onClose(() => console.log('gone'));
 * ```
 */
export interface LoopbackConnection {
  /** Runs `listener` once the client closes or aborts the request, or the server closes. */
  onClose(listener: () => void): void;
}

/**
 * One entry of the route table: the first route whose `method` (any when omitted) and `path`
 * (exact, or a RegExp tested against the path without the query) match answers the request. An
 * answer may be a promise: the request is held until it settles (long polling).
 *
 * @example
 * ```ts
 * import type { LoopbackRoute } from '@parley/testing/loopback';
 *
 * const route: LoopbackRoute = {
 *   method: 'POST',
 *   path: /^\/bot[^/]+\/getMe$/,
 *   answer: () => ({ json: { ok: true, result: { id: 1, is_bot: true, first_name: 'Shop bot' } } }),
 * };
 * ```
 */
export interface LoopbackRoute {
  readonly method?: string;
  readonly path: string | RegExp;
  answer(request: LoopbackRequest, connection: LoopbackConnection): LoopbackAnswer | Promise<LoopbackAnswer>;
}

/**
 * How {@link startLoopbackServer} answers.
 *
 * @example
 * ```ts
 * import type { LoopbackServerOptions } from '@parley/testing/loopback';
 *
 * const options: LoopbackServerOptions = {
 *   guard: (request) =>
 *     request.headers['authorization'] === 'Bearer t' ? undefined : { status: 401, json: { ok: false } },
 *   routes: [{ path: '/api/auth.test', answer: () => ({ json: { ok: true } }) }],
 * };
 * ```
 */
export interface LoopbackServerOptions {
  readonly routes: readonly LoopbackRoute[];
  /**
   * Runs first for every recorded request: an answer refuses it (a bad token), `undefined` lets
   * it through to the scripted failures and the routes.
   */
  readonly guard?: (request: LoopbackRequest) => LoopbackAnswer | undefined;
  /** The answer to a request no route matches; 404 `{ error: 'not_found' }` by default. */
  readonly notFound?: LoopbackAnswer;
}

/**
 * A stand-in of a platform's HTTP API on 127.0.0.1 and an ephemeral port: it answers from its
 * route table, records every request, and lets a test script failures for the next requests to a
 * path. `close` destroys every connection it holds (upgraded WebSockets included) and stops
 * listening, so nothing is left behind.
 *
 * @example
 * ```ts
 * import { startLoopbackServer, type LoopbackServer } from '@parley/testing/loopback';
 *
 * const server: LoopbackServer = await startLoopbackServer({ routes: [] });
 * console.log(server.url.startsWith('http://127.0.0.1:')); // true
 * await server.close();
 * ```
 */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order, refused ones included. */
  readonly requests: readonly LoopbackRequest[];
  /** The underlying Node server (to attach a WebSocket endpoint to its `upgrade` event). */
  readonly node: Server;
  /** The requests whose path is `path` (or matches it), in order. */
  requestsTo(path: string | RegExp): LoopbackRequest[];
  /** Resolves with the `count`-th request to `path` (counting those already received). */
  waitFor(path: string | RegExp, count?: number): Promise<LoopbackRequest>;
  /** The next requests to `path` (after the guard) get these answers, in order, instead of a route's. */
  failNext(path: string | RegExp, ...answers: LoopbackAnswer[]): void;
  close(): Promise<void>;
}
