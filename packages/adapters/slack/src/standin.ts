import { systemClock } from '@parley/core';
import {
  type LoopbackAnswer,
  type LoopbackRequest,
  rateLimited,
  sendRequest,
  startLoopbackServer,
} from '@parley/testing/loopback';
import { SlackAdapterError } from './errors.js';
import { createPayloads, type PostedMessage } from './internal/standin-payloads.js';
import { signatureHeaders } from './internal/standin-signing.js';
import { createStandInSocket } from './internal/standin-socket.js';
import { APP_METHODS, BOT_METHODS, refuse, type WebApiContext } from './internal/standin-web-api.js';
import type {
  SlackDelivery,
  SlackStandIn,
  SlackStandInCall,
  SlackStandInFailure,
  SlackStandInOptions,
} from './standin-types.js';

/** The methods whose successful calls are what the app sent (`sent`). */
const SENDING = new Set(['chat.postMessage', 'chat.update']);

/**
 * Starts a stand-in of Slack on 127.0.0.1 for testing a Bolt app offline: the Web API (set Bolt's
 * `clientOptions.slackApiUrl` to its `url`) answering `auth.test`, `chat.postMessage` and
 * `chat.update` in Slack's shapes and refusing what Slack refuses (`invalid_auth`,
 * `unknown_method`, `channel_not_found`, `no_text`, `msg_too_long`, `message_not_found`); Events
 * API bodies and interactivity payloads delivered signed with the signing secret (v0 HMAC-SHA256)
 * to the app's Request URL, or as envelopes over Socket Mode once the app opened a connection
 * (`apps.connections.open` with the app-level token). `message` and `click` deliver a member's
 * message or button click; `sent` records what the app posted.
 *
 * @example
 * ```ts
 * import type { Server } from 'node:http';
 * import type { AddressInfo } from 'node:net';
 * import { createSlackStandIn } from '@parley/slack/testing';
 * import { App, LogLevel } from '@slack/bolt';
 *
 * const slack = await createSlackStandIn();
 * const app = new App({
 *   token: slack.token,
 *   signingSecret: slack.signingSecret,
 *   processBeforeResponse: true, // answer Slack once the handlers ran
 *   logLevel: LogLevel.ERROR,
 *   clientOptions: { slackApiUrl: slack.url },
 * });
 * app.message('hello', async ({ say }) => {
 *   await say('hi there');
 * });
 * const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
 * slack.setRequestUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
 * await slack.message('hello');
 * console.log(slack.sent.map((call) => call.params['text'])); // [ 'hi there' ]
 * await app.stop();
 * await slack.close();
 * ```
 */
export async function createSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const clock = options.clock ?? systemClock;
  const signingClock = options.signingClock ?? systemClock;
  const token = options.token ?? 'xoxb-stand-in-token';
  const appToken = options.appToken ?? 'xapp-1-A0APP00001-1-stand-in';
  const signingSecret = options.signingSecret ?? 'stand-in-signing-secret';
  const ids = { teamId: 'T0TEAM0001', botUserId: 'U0BOT00001', botId: 'B0BOT00001' };
  const user = options.user ?? 'U0ADA00001';
  const channel = options.channel ?? 'C0GENERAL1';
  const calls: SlackStandInCall[] = [];
  const sent: SlackStandInCall[] = [];
  const waiters: {
    method: string;
    count: number;
    resolve(c: SlackStandInCall): void;
    reject(e: Error): void;
  }[] = [];
  const failures: { method: string; answer: LoopbackAnswer }[] = [];
  let reshapes: ((answer: Record<string, unknown>) => Record<string, unknown>)[] = [];
  let requestUrl: string | undefined;
  let seq = 0;
  let closed = false;
  let endPending!: () => void;
  const closing = new Promise<void>((resolve) => (endPending = resolve));
  const callsOf = (method: string): SlackStandInCall[] => calls.filter((call) => call.method === method);

  const context: WebApiContext = {
    clock,
    ...ids,
    openConnection: () => socket.open(),
    takeReshape: () => reshapes.shift(),
    nextSeq: () => ++seq,
    posts: new Map<string, PostedMessage>(),
    lastCard: undefined,
  };
  const payloads = createPayloads({ clock, ...ids, user, channel, lastCard: () => context.lastCard });

  function record(call: SlackStandInCall): void {
    calls.push(call);
    for (const waiter of [...waiters]) {
      const seen = callsOf(waiter.method);
      if (waiter.method !== call.method || seen.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(seen[waiter.count - 1] as SlackStandInCall);
    }
  }

  function answer(req: LoopbackRequest): LoopbackAnswer {
    const method = req.params[0] ?? '';
    const call: SlackStandInCall = { method, params: paramsOf(req.body) };
    const bearer = req.headers['authorization'];
    const forApp = APP_METHODS[method];
    if (bearer !== `Bearer ${forApp === undefined ? token : appToken}`)
      return refuse(bearer === `Bearer ${token}` ? 'not_allowed_token_type' : 'invalid_auth');
    record(call);
    const failure = failures.findIndex((f) => f.method === method);
    if (failure >= 0) return (failures.splice(failure, 1)[0] as { answer: LoopbackAnswer }).answer;
    const run = forApp ?? BOT_METHODS[method];
    if (run === undefined) return refuse('unknown_method');
    const result = run(call.params, context);
    if (SENDING.has(method) && 'json' in result && (result.json as { ok?: unknown }).ok === true)
      sent.push(call);
    return result;
  }

  const server = await startLoopbackServer({
    notFound: refuse('unknown_method'),
    routes: [{ method: 'POST', path: /^\/api\/([^/]+)$/, answer }],
  });
  const socket = createStandInSocket(server);

  const sign = (body: string, at?: number, secret = signingSecret): Record<string, string> =>
    signatureHeaders(secret, body, at ?? Math.floor(signingClock.now() / 1000));

  async function post(text: string, type: string, headers: Record<string, string>): Promise<SlackDelivery> {
    const url = requestUrl as string; // checked by send
    try {
      const { status } = await sendRequest(url, {
        headers: { 'content-type': type, ...headers },
        body: text,
      });
      if (status >= 200 && status < 300) return { ok: true, status };
      return { ok: false, code: 'request_refused', status, message: `The app at ${url} answered ${status}` };
    } catch (error) {
      return {
        ok: false,
        code: 'request_unreachable',
        message: `The app at ${url} could not be reached: ${String(error)}`,
      };
    }
  }

  async function send(
    kind: 'events_api' | 'interactive',
    payload: object,
    retry: number,
    secret: string | undefined,
  ): Promise<SlackDelivery> {
    const ended: SlackDelivery = { ok: false, code: 'closed', message: 'The Slack stand-in is closed' };
    if (closed) return ended;
    if (socket.connected())
      return Promise.race([
        socket.envelope(kind, payload, retry).then(() => ({ ok: true }) as const),
        closing.then(() => ended),
      ]);
    if (requestUrl === undefined)
      return {
        ok: false,
        code: 'not_connected',
        message: 'No Request URL is set and no app is connected by Socket Mode',
      };
    const text =
      kind === 'events_api'
        ? JSON.stringify(payload)
        : `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const type = kind === 'events_api' ? 'application/json' : 'application/x-www-form-urlencoded';
    const retried: Record<string, string> =
      retry > 0 ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {};
    return post(text, type, { ...sign(text, undefined, secret), ...retried });
  }

  return {
    url: `${server.url}/api/`,
    token,
    appToken,
    signingSecret,
    ...ids,
    user,
    channel,
    sent,
    payloads,
    calls: callsOf,
    waitFor(method, count = 1) {
      const seen = callsOf(method);
      if (seen.length >= count) return Promise.resolve(seen[count - 1] as SlackStandInCall);
      if (closed) return Promise.reject(closedError(method));
      return new Promise((resolve, reject) => waiters.push({ method, count, resolve, reject }));
    },
    setRequestUrl(url) {
      requestUrl = url;
    },
    sign: (body, signOptions = {}) => sign(body, signOptions.at, signOptions.signingSecret),
    async message(text, messageOptions) {
      const body = payloads.message(text, messageOptions);
      return { ...(await send('events_api', body, 0, undefined)), body };
    },
    click: (button, clickOptions) => send('interactive', payloads.click(button, clickOptions), 0, undefined),
    deliver: (body, deliverOptions = {}) =>
      send('events_api', body, deliverOptions.retry ?? 0, deliverOptions.signingSecret),
    interact: (payload, deliverOptions = {}) =>
      send('interactive', payload, deliverOptions.retry ?? 0, deliverOptions.signingSecret),
    connections: () => server.requestsTo('/api/apps.connections.open').map((r) => r.headers['authorization']),
    failNext(method, failure) {
      failures.push({ method, answer: answerOf(failure) });
    },
    reshapeNextPost(reshape) {
      reshapes = [...reshapes, reshape];
    },
    async close() {
      if (closed) return;
      closed = true;
      endPending();
      for (const waiter of waiters.splice(0)) waiter.reject(closedError(waiter.method));
      await server.close();
    },
  };
}

/** The recorded params of a form-encoded call, `blocks` parsed as the JSON it carries. */
function paramsOf(body: unknown): Record<string, unknown> {
  const params: Record<string, unknown> =
    typeof body === 'object' && body !== null ? { ...(body as Record<string, unknown>) } : {};
  if (typeof params['blocks'] === 'string') {
    try {
      params['blocks'] = JSON.parse(params['blocks']) as unknown;
    } catch {
      // kept as sent: Slack would answer invalid_blocks
    }
  }
  return params;
}

function answerOf(failure: SlackStandInFailure): LoopbackAnswer {
  if ('drop' in failure) return { drop: true };
  if ('error' in failure) return refuse(failure.error);
  if (failure.status === 429) return rateLimited(failure.retryAfter, { ok: false, error: 'ratelimited' });
  return { status: failure.status, json: { ok: false } };
}

function closedError(method: string): SlackAdapterError {
  return new SlackAdapterError('closed', `The Slack stand-in closed before the app called ${method}`, {
    details: { method },
  });
}
