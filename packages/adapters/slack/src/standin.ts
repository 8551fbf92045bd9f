import { systemClock } from '@parley/core';
import { type LoopbackAnswer, startLoopbackServer } from '@parley/testing/loopback';
import { type AnswerState, answerCall, answerOf } from './internal/standin-answer.js';
import { createStandInCallLog } from './internal/standin-calls.js';
import { type DeliverState, deliverToApp } from './internal/standin-deliver.js';
import { createPayloads, type PostedMessage } from './internal/standin-payloads.js';
import { signatureHeaders } from './internal/standin-signing.js';
import { createStandInSocket } from './internal/standin-socket.js';
import { refuse, type WebApiContext } from './internal/standin-web-api.js';
import type { SlackDelivery, SlackStandIn, SlackStandInOptions } from './standin-types.js';

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
  const log = createStandInCallLog();
  const failures: { method: string; answer: LoopbackAnswer }[] = [];
  let reshapes: ((answer: Record<string, unknown>) => Record<string, unknown>)[] = [];
  let requestUrl: string | undefined;
  let seq = 0;
  let closed = false;
  let endPending!: () => void;
  const closing = new Promise<void>((resolve) => (endPending = resolve));

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
  const answering: AnswerState = { token, appToken, context, log, sent: [], failures };

  const server = await startLoopbackServer({
    notFound: refuse('unknown_method'),
    routes: [{ method: 'POST', path: /^\/api\/([^/]+)$/, answer: (req) => answerCall(answering, req) }],
  });
  const socket = createStandInSocket(server);

  const sign = (body: string, at?: number, secret = signingSecret): Record<string, string> =>
    signatureHeaders(secret, body, at ?? Math.floor(signingClock.now() / 1000));
  const delivering: DeliverState = {
    isClosed: () => closed,
    closing,
    socket,
    requestUrl: () => requestUrl,
    sign,
  };
  const send = (
    kind: 'events_api' | 'interactive',
    payload: object,
    retry: number,
    secret: string | undefined,
  ): Promise<SlackDelivery> => deliverToApp(delivering, kind, payload, retry, secret);

  return {
    url: `${server.url}/api/`,
    token,
    appToken,
    signingSecret,
    ...ids,
    user,
    channel,
    sent: answering.sent,
    payloads,
    calls: log.callsOf,
    waitFor: (method, count = 1) => log.waitFor(method, count, closed),
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
      log.rejectWaiters();
      await server.close();
    },
  };
}
