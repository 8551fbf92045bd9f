// The people and channel of the tests, and one Bolt app (HTTPReceiver on 127.0.0.1) with the
// adapter and a bus on the exported Slack stand-in, which delivers Events API and interactivity
// requests signed with the signing secret to the app's Request URL and answers its Web API calls.
// `processBeforeResponse` makes Bolt answer a request only after its middleware ran, so a
// delivery resolves once the event was handled.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { Clock, ManualClock } from '@parley/core';
import { sendRequest } from '@parley/testing/loopback';
import { App, LogLevel } from '@slack/bolt';
import { createSlackAdapter, type SlackAdapter } from '../src/index.js';
import {
  createSlackStandIn,
  type SlackDelivery,
  type SlackEventBody,
  type SlackInteraction,
  type SlackStandIn,
} from '../src/testing.js';

/** 2026-01-01T00:00:00Z in ms. */
export const T0 = 1_767_225_600_000;
export const CHANNEL = 'C0OPS00001';
export const ALICE = 'U0ALICE001';
export const MALLORY = 'U0MALLORY1';
export const OTHER_BOT = 'B0HELPER01';

/** The stand-in the tests use: Alice writes in #ops unless a test says otherwise. */
export function startStandIn(clock: Clock): Promise<SlackStandIn> {
  return createSlackStandIn({ clock, user: ALICE, channel: CHANNEL });
}

/** The HTTP status of a delivery (0 when none came back). */
export const statusOf = (delivery: SlackDelivery): number => delivery.status ?? 0;

export interface Harness {
  readonly app: App;
  readonly bus: MessageBus;
  readonly slack: SlackAdapter;
  /** Delivers an Events API body as Slack would (`retry`: its redelivery count); resolves to the status. */
  event(body: SlackEventBody, retry?: number): Promise<number>;
  /** Delivers an interactivity payload as Slack would; resolves to the status. */
  interaction(payload: SlackInteraction): Promise<number>;
  /** Posts a raw body with the given headers to the app's Request URL. */
  post(body: string, type: string, headers: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  readonly clock: ManualClock;
  readonly api: SlackStandIn;
  readonly raw?: boolean;
  readonly ignoreSelf?: boolean;
  readonly setup?: (app: App, bus: MessageBus, slack: SlackAdapter) => void;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { api, clock } = options;
  const app = new App({
    token: api.token,
    signingSecret: api.signingSecret,
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
  const url = `http://127.0.0.1:${port}/slack/events`;
  api.setRequestUrl(url);

  return {
    app,
    bus,
    slack,
    event: async (body, retry = 0) => statusOf(await api.deliver(body, { retry })),
    interaction: async (payload) => statusOf(await api.interact(payload)),
    async post(body, type, headers) {
      return (await sendRequest(url, { headers: { 'content-type': type, ...headers }, body })).status;
    },
    async stop() {
      api.setRequestUrl(undefined);
      await app.stop();
      await bus.close();
    },
  };
}
