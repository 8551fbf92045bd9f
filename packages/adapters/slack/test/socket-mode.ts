// A Bolt app on its real SocketModeReceiver (@slack/socket-mode's SocketModeClient), connected to
// the exported Slack stand-in by Socket Mode (apps.connections.open with the app-level token, then
// envelopes on a WebSocket). https://api.slack.com/apis/socket-mode
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { ManualClock } from '@parley/core';
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import { createSlackAdapter, type SlackAdapter } from '../src/index.js';
import type { SlackDelivery, SlackEventBody, SlackInteraction, SlackStandIn } from '../src/testing.js';

export interface SocketHarness {
  readonly app: App;
  readonly bus: MessageBus;
  readonly slack: SlackAdapter;
  /** Sends an Events API body in an `events_api` envelope; resolves once acked and handled. */
  event(body: SlackEventBody, retry?: number): Promise<SlackDelivery>;
  /** Sends an interactivity payload in an `interactive` envelope; resolves once acked and handled. */
  interaction(payload: SlackInteraction): Promise<SlackDelivery>;
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
  readonly api: SlackStandIn;
}): Promise<SocketHarness> {
  const { api, clock } = options;
  const receiver = new SocketModeReceiver({
    appToken: api.appToken,
    logLevel: LogLevel.ERROR,
    autoReconnectEnabled: false,
    installerOptions: { clientOptions: { slackApiUrl: api.url } },
  });
  const app = new App({
    token: api.token,
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
  const deliver = async (send: () => Promise<SlackDelivery>): Promise<SlackDelivery> => {
    const done = new Promise<void>((resolve) => {
      handled = resolve;
    });
    const delivery = await send();
    if (delivery.ok) await done;
    return delivery;
  };
  return {
    app,
    bus,
    slack,
    event: (body, retry = 0) => deliver(() => api.deliver(body, { retry })),
    interaction: (payload) => deliver(() => api.interact(payload)),
    async stop() {
      const closed = new Promise<void>((resolve) => receiver.client.once('disconnected', () => resolve()));
      await app.stop();
      await closed;
      await bus.close();
    },
  };
}
