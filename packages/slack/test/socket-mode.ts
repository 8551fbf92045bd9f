// Slack Socket Mode on loopback for Bolt's real SocketModeReceiver (@slack/socket-mode's
// SocketModeClient): a stand-in answering `apps.connections.open` (app-level token only) with the
// URL of a WebSocket endpoint that greets each client with `hello` and carries Slack's documented
// envelopes (`events_api`, `interactive`, each with an `envelope_id` the app must acknowledge by
// sending it back). https://api.slack.com/apis/socket-mode
import { randomUUID } from 'node:crypto';
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { ManualClock } from '@parley/core';
import { startLoopbackServer } from '@parley/testing/loopback';
import { startLoopbackSocket } from '@parley/testing/loopback-ws';
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import { createSlackAdapter, type SlackAdapter } from '../src/index.js';
import type { WebApiStandIn } from './web-api.js';

export const APP_TOKEN = 'xapp-1-A0APP00001-1-test';

/** What the app sends back for an envelope: its id and the (empty) response payload. */
export interface SocketAck {
  readonly envelope_id: string;
  readonly payload?: unknown;
}

export interface SocketModeStandIn {
  /** The `slackApiUrl` for the SocketModeClient's WebClient (it calls apps.connections.open). */
  readonly url: string;
  /** The app-level tokens apps.connections.open was called with, in order. */
  opened(): (string | undefined)[];
  /** Sends one envelope of `type` around `payload`; resolves with the app's acknowledgement. */
  envelope(type: 'events_api' | 'interactive', payload: object, retry?: number): Promise<SocketAck>;
  /** Resolves once the connected app has closed its socket. */
  disconnected(): Promise<void>;
  close(): Promise<void>;
}

export async function startSocketMode(): Promise<SocketModeStandIn> {
  const tickets = new Set<string>();
  const server = await startLoopbackServer({
    guard: (req) =>
      req.headers['authorization'] === `Bearer ${APP_TOKEN}`
        ? undefined
        : { json: { ok: false, error: 'invalid_auth' } },
    notFound: { json: { ok: false, error: 'unknown_method' } },
    routes: [
      {
        path: '/api/apps.connections.open',
        answer: () => {
          const ticket = randomUUID();
          tickets.add(ticket);
          return { json: { ok: true, url: `${socket.url}?ticket=${ticket}&app_id=A0APP00001` } };
        },
      },
    ],
  });
  const socket = startLoopbackSocket(server, {
    path: '/link/',
    accept: (upgrade) => tickets.delete(upgrade.query['ticket'] ?? ''),
    greeting: () => ({
      type: 'hello',
      num_connections: 1,
      debug_info: { host: 'applink-standin', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: 'A0APP00001' },
    }),
  });
  return {
    url: `${server.url}/api/`,
    opened: () => server.requestsTo('/api/apps.connections.open').map((r) => r.headers['authorization']),
    async envelope(type, payload, retry = 0) {
      const id = randomUUID();
      const acked = socket.nextFrame((frame) => (frame as SocketAck).envelope_id === id);
      socket.send({
        envelope_id: id,
        payload,
        type,
        accepts_response_payload: false,
        ...(type === 'events_api' ? { retry_attempt: retry, retry_reason: retry > 0 ? 'timeout' : '' } : {}),
      });
      return (await acked) as SocketAck;
    },
    disconnected: () => socket.disconnected(),
    close: () => server.close(),
  };
}

export interface SocketHarness {
  readonly app: App;
  readonly bus: MessageBus;
  readonly slack: SlackAdapter;
  /** Sends an Events API body in an `events_api` envelope; resolves once acked and handled. */
  event(body: object, retry?: number): Promise<SocketAck>;
  /** Sends an interactivity payload in an `interactive` envelope; resolves once acked and handled. */
  interaction(payload: object): Promise<SocketAck>;
  stop(): Promise<void>;
}

/**
 * A Bolt app on its real SocketModeReceiver, connected to the stand-in, with the adapter and a bus.
 * Bolt acknowledges an envelope before its middleware has run (events at once, clicks from the
 * adapter before the gate decides), so a global middleware ahead of the adapter's reports when
 * the chain is done: a delivery resolves once acknowledged and handled.
 */
export async function startSocketHarness(options: {
  readonly clock: ManualClock;
  readonly api: WebApiStandIn;
  readonly socket: SocketModeStandIn;
}): Promise<SocketHarness> {
  const { api, clock, socket } = options;
  const receiver = new SocketModeReceiver({
    appToken: APP_TOKEN,
    logLevel: LogLevel.ERROR,
    autoReconnectEnabled: false,
    installerOptions: { clientOptions: { slackApiUrl: socket.url } },
  });
  const app = new App({
    token: 'xoxb-test-token',
    receiver,
    logLevel: LogLevel.ERROR,
    deferInitialization: true,
    clientOptions: { slackApiUrl: api.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } },
  });
  await app.init();
  let handled: (() => void) | undefined;
  app.use(async ({ next }) => {
    try {
      await next();
    } finally {
      handled?.();
    }
  });
  const slack = createSlackAdapter({ client: app.client });
  app.use(slack.middleware);
  const bus = createMessageBus({ clock });
  bus.intercept(createHygieneInterceptor());
  await bus.attach(slack);
  await app.start();
  const deliver = async (send: () => Promise<SocketAck>): Promise<SocketAck> => {
    const done = new Promise<void>((resolve) => {
      handled = resolve;
    });
    const ack = await send();
    await done;
    return ack;
  };
  return {
    app,
    bus,
    slack,
    event: (body, retry) => deliver(() => socket.envelope('events_api', body, retry)),
    interaction: (payload) => deliver(() => socket.envelope('interactive', payload)),
    async stop() {
      const closed = new Promise<void>((resolve) => receiver.client.once('disconnected', () => resolve()));
      await app.stop();
      await closed;
      await bus.close();
    },
  };
}
