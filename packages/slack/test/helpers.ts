// One Bolt app (HTTPReceiver on 127.0.0.1) with the adapter, a bus and the Web API stand-in. A test
// acts as Slack: it POSTs documented Events API and interactivity payloads, signed with the signing
// secret (https://api.slack.com/authentication/verifying-requests-from-slack), and reads the app's
// Web API calls from the stand-in. `processBeforeResponse` makes Bolt answer a request only after
// its middleware ran, so a post resolves once the event was handled.
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { ManualClock } from '@parley/core';
import { sendRequest } from '@parley/testing/loopback';
import { App, LogLevel } from '@slack/bolt';
import { createSlackAdapter, type SlackAdapter } from '../src/index.js';
import type { WebApiStandIn } from './web-api.js';

export const SIGNING_SECRET = 'signing-secret-8f2a';

export interface Harness {
  readonly app: App;
  readonly bus: MessageBus;
  readonly slack: SlackAdapter;
  /** Posts an Events API body (JSON) as Slack would; resolves to the HTTP status once handled. */
  event(body: object, headers?: Record<string, string>): Promise<number>;
  /** Posts an interactivity payload (form-encoded `payload=`) as Slack would. */
  interaction(payload: object): Promise<number>;
  /** Posts a raw body with the given signature headers. */
  post(body: string, type: string, headers: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  readonly clock: ManualClock;
  readonly api: WebApiStandIn;
  readonly raw?: boolean;
  readonly ignoreSelf?: boolean;
  readonly setup?: (app: App, bus: MessageBus, slack: SlackAdapter) => void;
}

export function sign(body: string, at = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = createHmac('sha256', SIGNING_SECRET).update(`v0:${at}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(at), 'x-slack-signature': `v0=${signature}` };
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { api, clock } = options;
  const app = new App({
    token: 'xoxb-test-token',
    signingSecret: SIGNING_SECRET,
    processBeforeResponse: true,
    ignoreSelf: options.ignoreSelf ?? true,
    logLevel: LogLevel.ERROR,
    deferInitialization: true,
    clientOptions: {
      slackApiUrl: api.url,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    },
  });
  await app.init(); // auth.test against the stand-in
  const slack = createSlackAdapter({ client: app.client });
  app.use(slack.middleware);
  const bus = createMessageBus({ clock });
  if (options.raw !== true) bus.intercept(createHygieneInterceptor());
  options.setup?.(app, bus, slack);
  await bus.attach(slack);
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  const { port } = server.address() as AddressInfo; // a TCP server: an AddressInfo

  const post = async (body: string, type: string, headers: Record<string, string>): Promise<number> => {
    const url = `http://127.0.0.1:${port}/slack/events`;
    return (await sendRequest(url, { headers: { 'content-type': type, ...headers }, body })).status;
  };

  return {
    app,
    bus,
    slack,
    event(body, headers = {}) {
      const text = JSON.stringify(body);
      return post(text, 'application/json', { ...sign(text), ...headers });
    },
    interaction(payload) {
      const text = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
      return post(text, 'application/x-www-form-urlencoded', sign(text));
    },
    post,
    async stop() {
      await app.stop();
      await bus.close();
    },
  };
}
