import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen.js';

/**
 * A Node request handler, as platform libraries build them for webhooks: grammY's
 * `webhookCallback(bot, 'http')`, Lark's `adaptDefault(path, dispatcher)`, or your own.
 *
 * @example
 * ```ts
 * import type { LoopbackHandler } from '@parley/testing/loopback';
 *
 * const handler: LoopbackHandler = (_req, res) => void res.end('ok');
 * ```
 */
export type LoopbackHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

/**
 * The bot's side of a webhook test, listening on 127.0.0.1 and an ephemeral port: post to `url`
 * with {@link sendRequest} as the platform would. `close` destroys every connection it holds.
 *
 * @example
 * ```ts
 * import { serveLoopback, type LoopbackEndpoint } from '@parley/testing/loopback';
 *
 * const bot: LoopbackEndpoint = await serveLoopback((_req, res) => void res.end());
 * console.log(bot.url === `http://127.0.0.1:${bot.port}`); // true
 * await bot.close();
 * ```
 */
export interface LoopbackEndpoint {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves a webhook handler on 127.0.0.1 and an ephemeral port (see {@link LoopbackEndpoint}), so
 * a test can post updates to the platform library's own webhook code. A handler that throws or
 * rejects before answering gets a 500, so the test sees the failure instead of a hung request.
 *
 * @example
 * ```ts
 * import { sendRequest, serveLoopback } from '@parley/testing/loopback';
 *
 * const seen: string[] = [];
 * const bot = await serveLoopback((req, res) => {
 *   seen.push(`${req.method} ${req.url}`);
 *   res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
 * });
 * const answer = await sendRequest(`${bot.url}/webhook`, { body: '{"update_id":1}' });
 * console.log(answer.status, answer.text, seen); // 200 {"ok":true} [ 'POST /webhook' ]
 * await bot.close();
 * ```
 */
export async function serveLoopback(handler: LoopbackHandler): Promise<LoopbackEndpoint> {
  const fail = (res: ServerResponse, error: unknown): void => {
    if (!res.headersSent)
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(String(error));
  };
  const server = createServer((req, res) => {
    try {
      Promise.resolve(handler(req, res)).catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  });
  return listenOnLoopback(server);
}
