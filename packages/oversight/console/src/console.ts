import type { ConsoleRefusalCode } from './errors.js';
import type { ConsoleRequest, ConsoleResponse } from './http.js';
import { chainDetail, chainPage } from './internal/chains.js';
import { decisionPage, pendingPage } from './internal/confirmations.js';
import type { ListView, ViewContext } from './internal/context.js';
import { type Html, page, SECTIONS, STYLE, a, el, join, t } from './internal/html.js';
import {
  chainHtml,
  chainsHtml,
  decisionsHtml,
  type Links,
  pendingHtml,
  runHtml,
  runsHtml,
  unknownHtml,
} from './internal/render.js';
import { runDetail, runPage } from './internal/runs.js';
import { unknownPage } from './internal/unknown.js';
import { type ConsoleOptions, type Resolved, resolveOptions } from './options.js';

/**
 * A request handler for Node's `http` server (and Express, Fastify or Hono on Node, which pass the
 * same `req` and `res`): it answers every request itself and never calls a `next`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { type ConsoleHandler, createConsole } from '@parley/console';
 * import { createMemoryStore } from '@parley/core';
 *
 * const handler: ConsoleHandler = createConsole({ store: createMemoryStore() });
 * const server = createServer((req, res) => void handler(req, res));
 * ```
 */
export type ConsoleHandler = (req: ConsoleRequest, res: ConsoleResponse) => Promise<void>;

/**
 * Creates the console: a read-only view of a `Store` served as HTML pages (and their JSON with
 * `?format=json`): confirmations waiting (`/confirmations`) and settled (`/confirmations/settled`),
 * pipeline runs (`/runs`, `/runs/<run id>` with the live graph), unknown outcomes (`/unknown`) and
 * the consent ledger per session with its verification (`/ledger`, `/ledger/<session>`). Listings are
 * pages of `pageSize` rows in key order (`?after=<cursor>` for the next), read in one pass over
 * the store's listing. Every answer carries a strict Content-Security-Policy (no script at all,
 * no framing), all stored text is escaped, bidi-isolated and bounded, and raw arguments and
 * outputs stay hidden unless `reveal` allows them.
 *
 * @throws ConsoleError `invalid_argument` for a bad option.
 * @example
 * ```ts
 * import { createConsole } from '@parley/console';
 * import { createMemoryStore } from '@parley/core';
 *
 * const store = createMemoryStore();
 * const handler = createConsole({ store, authenticate: (req) => req.headers['x-operator'] === 'yes' });
 * // express: app.use('/console', handler) with basePath: '/console'; node:http: createServer(handler)
 * console.log(typeof handler); // function
 * ```
 */
export function createConsole(options: ConsoleOptions): ConsoleHandler {
  const ctx = resolveOptions(options);
  return async (req, res) => {
    const url = new URL(String(req.url), 'http://console.invalid'); // a server's request always has its url
    const asJson = url.searchParams.get('format') === 'json';
    try {
      await serve(ctx, req, res, url, asJson);
    } catch {
      send(res, req, refusal('store_failed', 'The store could not be read.'), ctx, asJson);
    }
  };
}

/** What a request is answered with: a status, a title and HTML, and the JSON of the same. */
interface Answer {
  readonly status: number;
  readonly title: string;
  readonly body: Html;
  readonly json: unknown;
  readonly type?: 'css';
}

async function serve(
  ctx: Resolved,
  req: ConsoleRequest,
  res: ConsoleResponse,
  url: URL,
  asJson: boolean,
): Promise<void> {
  if (ctx.authenticate !== undefined && !(await allowed(ctx, req))) {
    return send(res, req, refusal('unauthenticated', 'Authentication required.'), ctx, asJson);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, req, refusal('method_not_allowed', 'The console is read-only.'), ctx, asJson);
  }
  const path = stripBase(url.pathname, ctx.basePath);
  const after = url.searchParams.get('after') ?? undefined;
  if (after !== undefined && (after === '' || after.length > 1024)) {
    return send(
      res,
      req,
      refusal('invalid_argument', 'The cursor (after) is 1…1024 characters.'),
      ctx,
      asJson,
    );
  }
  send(res, req, await route(ctx, path, after), ctx, asJson);
}

async function route(ctx: Resolved, path: string, after: string | undefined): Promise<Answer> {
  const links: Links = { base: ctx.basePath, path };
  const list = <T>(title: string, view: ListView<T>, html: (v: ListView<T>, l: Links) => Html): Answer => ({
    status: 200,
    title,
    body: html(view, links),
    json: view,
  });
  if (path === '/style.css')
    return { status: 200, title: '', body: { html: STYLE }, json: null, type: 'css' };
  if (path === '/' || path === '') return home(ctx);
  if (path === '/confirmations')
    return list('Waiting for a person', await pendingPage(ctx, after), pendingHtml);
  if (path === '/confirmations/settled')
    return list('Settled confirmations', await decisionPage(ctx, after), decisionsHtml);
  if (path === '/runs') return list('Pipeline runs', await runPage(ctx, after), runsHtml);
  if (path === '/unknown') return list('Unknown outcomes', await unknownPage(ctx, after), unknownHtml);
  if (path === '/ledger') return list('Consent ledger', await chainPage(ctx, after), chainsHtml);
  const [, section, rest] = /^\/(runs|ledger)\/(.+)$/.exec(path) ?? [];
  const id = rest === undefined ? undefined : decode(rest);
  if (section === 'runs' && id !== undefined) {
    const view = await runDetail(ctx, id);
    if (view === undefined) return refusal('not_found', 'No such run is stored.');
    if (!view.ok)
      return { status: 500, title: 'Unreadable run', body: el('p', t(view.message), 'bad'), json: view };
    return { status: 200, title: `Run ${view.run.runId}`, body: runHtml(view), json: view };
  }
  if (section === 'ledger' && id !== undefined) {
    const from = after === undefined ? 0 : Number(after);
    if (!Number.isSafeInteger(from) || from < 0)
      return refusal('invalid_argument', 'A chain’s cursor is a line number.');
    const view = await chainDetail(ctx, id, from);
    if (view === undefined) return refusal('not_found', 'No chain is stored for this session.');
    if (!view.ok)
      return { status: 500, title: 'Unreadable chain', body: el('p', t(view.message), 'bad'), json: view };
    return { status: 200, title: `Consent chain ${view.session}`, body: chainHtml(view, links), json: view };
  }
  return refusal('not_found', 'No such page.');
}

function home(ctx: ViewContext & { readonly basePath: string }): Answer {
  const items = SECTIONS.map(([path, label]) => el('li', a(`${ctx.basePath}${path}`, t(label))));
  return {
    status: 200,
    title: 'Overview',
    body: el('ul', items),
    json: { ok: true, sections: SECTIONS.map(([p]) => p) },
  };
}

const STATUS: Readonly<Record<ConsoleRefusalCode, number>> = {
  unauthenticated: 401,
  invalid_argument: 400,
  not_found: 404,
  method_not_allowed: 405,
  store_failed: 500,
};

function refusal(code: ConsoleRefusalCode, message: string): Answer {
  return { status: STATUS[code], title: message, body: join([]), json: { ok: false, code, message } };
}

async function allowed(ctx: Resolved, req: ConsoleRequest): Promise<boolean> {
  try {
    return (await ctx.authenticate?.(req)) === true;
  } catch {
    return false; // fail closed: a hook that throws lets nobody in
  }
}

/** Security headers on every answer: no script, no framing, no sniffing, no caching. */
const HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function send(
  res: ConsoleResponse,
  req: ConsoleRequest,
  answer: Answer,
  ctx: Resolved,
  asJson = false,
): void {
  for (const [name, value] of Object.entries(HEADERS)) res.setHeader(name, value);
  let body: string;
  if (answer.status === 401) {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    body = 'Authentication required.\n'; // nothing else: not even which pages exist
  } else if (answer.type === 'css') {
    res.setHeader('Content-Type', 'text/css; charset=utf-8');
    body = answer.body.html;
  } else if (asJson) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    body = JSON.stringify(answer.json);
  } else {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    const refresh = answer.status === 200 ? ctx.refreshSeconds : 0;
    body = page({ base: ctx.basePath, title: answer.title, body: answer.body, refreshSeconds: refresh });
  }
  res.statusCode = answer.status;
  res.setHeader('Content-Length', new TextEncoder().encode(body).length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

function stripBase(pathname: string, base: string): string {
  if (base !== '' && (pathname === base || pathname.startsWith(`${base}/`)))
    return pathname.slice(base.length) || '/';
  return pathname;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
