import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen.js';
import type {
  LoopbackAnswer,
  LoopbackRequest,
  LoopbackRoute,
  LoopbackServer,
  LoopbackServerOptions,
} from './types.js';

const NOT_FOUND: LoopbackAnswer = { status: 404, json: { error: 'not_found' } };

/**
 * Starts a stand-in of a platform's HTTP API on 127.0.0.1 and an ephemeral port (see
 * {@link LoopbackServer}). Point the platform library at `server.url` (grammY's `client.apiRoot`,
 * Bolt's `clientOptions.slackApiUrl`, Lark's `domain`) and answer the calls it makes from the
 * route table, in the shapes the platform documents.
 *
 * @example
 * ```ts
 * import { rateLimited, sendRequest, startLoopbackServer } from '@parley/testing/loopback';
 *
 * const api = await startLoopbackServer({
 *   routes: [{ method: 'POST', path: /^\/api\/(.+)$/, answer: (req) => ({ json: { ok: true, method: req.params[0] } }) }],
 * });
 * api.failNext('/api/chat.postMessage', rateLimited(30, { ok: false, error: 'ratelimited' }));
 * const first = await sendRequest(`${api.url}/api/chat.postMessage`, { body: 'channel=C1' });
 * const second = await sendRequest(`${api.url}/api/chat.postMessage`, { body: 'channel=C1' });
 * console.log(first.status, first.headers['retry-after'], second.status); // 429 30 200
 * console.log(api.requestsTo('/api/chat.postMessage').map((r) => r.body)); // [ { channel: 'C1' }, { channel: 'C1' } ]
 * await api.close();
 * ```
 */
export async function startLoopbackServer(options: LoopbackServerOptions): Promise<LoopbackServer> {
  const requests: LoopbackRequest[] = [];
  const scripted: { path: string | RegExp; answer: LoopbackAnswer }[] = [];
  const waiters: { path: string | RegExp; count: number; resolve: (request: LoopbackRequest) => void }[] = [];
  const requestsTo = (path: string | RegExp): LoopbackRequest[] =>
    requests.filter((request) => matches(path, request.path));

  function record(request: LoopbackRequest): void {
    requests.push(request);
    for (const waiter of [...waiters]) {
      const seen = requestsTo(waiter.path);
      if (seen.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(seen[waiter.count - 1] as LoopbackRequest);
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers = headersOf(req);
    const base = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      text,
      body: parseBody(text, headers['content-type']),
    };
    const route = options.routes.find((r) => matchesRoute(r, base.method, base.path));
    const params = route !== undefined && route.path instanceof RegExp ? groups(route.path, base.path) : [];
    const request: LoopbackRequest = { ...base, params };
    record(request);
    const refusal = options.guard?.(request);
    if (refusal !== undefined) return reply(req, res, refusal);
    const index = scripted.findIndex((s) => matches(s.path, request.path));
    if (index >= 0)
      return reply(req, res, (scripted.splice(index, 1)[0] as { answer: LoopbackAnswer }).answer);
    if (route === undefined) return reply(req, res, options.notFound ?? NOT_FOUND);
    const connection = { onClose: (listener: () => void) => void res.once('close', listener) };
    reply(req, res, await route.answer(request, connection));
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) =>
        reply(req, res, { status: 500, json: { error: String(error) } }),
      );
    });
  });
  const { url, port, close } = await listenOnLoopback(server);

  return {
    url,
    port,
    requests,
    node: server,
    requestsTo,
    waitFor(path, count = 1) {
      const seen = requestsTo(path);
      if (seen.length >= count) return Promise.resolve(seen[count - 1] as LoopbackRequest);
      return new Promise((resolve) => waiters.push({ path, count, resolve }));
    },
    failNext(path, ...answers) {
      scripted.push(...answers.map((answer) => ({ path, answer })));
    },
    close,
  };
}

/**
 * A 429 answer with a `retry-after` header of `seconds` and `json` as its body, the way Slack,
 * Feishu and most HTTP APIs say "too many requests" (Telegram says it in the body: answer
 * `{ status: 429, json: { ok: false, error_code: 429, parameters: { retry_after } } }` there).
 *
 * @example
 * ```ts
 * import { rateLimited } from '@parley/testing/loopback';
 *
 * console.log(rateLimited(3, { ok: false, error: 'ratelimited' }));
 * // { status: 429, json: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '3' } }
 * ```
 */
export function rateLimited(seconds: number, json: unknown): LoopbackAnswer {
  return { status: 429, json, headers: { 'retry-after': String(seconds) } };
}

function reply(req: IncomingMessage, res: ServerResponse, answer: LoopbackAnswer): void {
  if (res.destroyed || res.headersSent) return; // the client went away while the answer was held
  if ('drop' in answer) {
    req.socket.destroy();
    return;
  }
  const json = 'json' in answer;
  res
    .writeHead(answer.status ?? 200, {
      'content-type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
      ...answer.headers,
    })
    .end(json ? JSON.stringify(answer.json) : answer.text);
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parseBody(text: string, type = ''): unknown {
  if (text === '') return undefined;
  if (type.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (type === '' || type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function matches(path: string | RegExp, actual: string): boolean {
  return typeof path === 'string' ? path === actual : path.test(actual);
}

function matchesRoute(route: LoopbackRoute, method: string, path: string): boolean {
  return (route.method === undefined || route.method === method) && matches(route.path, path);
}

function groups(pattern: RegExp, path: string): string[] {
  return (pattern.exec(path) ?? []).slice(1).map((group) => group ?? '');
}
