import type { ChannelAdapter, InboundInterceptor, OutboundMessage, SendReceipt } from '@parley/bus';
import type { Emitter } from '@parley/core';
import type { AnyMiddlewareArgs, Middleware, webApi } from '@slack/bolt';

/**
 * Options for {@link createSlackAdapter}.
 *
 * @example
 * ```ts
 * import type { SlackAdapterOptions } from '@parley/slack';
 * import { App } from '@slack/bolt';
 *
 * const app = new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true });
 * const options: SlackAdapterOptions = { client: app.client, channel: 'slack' };
 * ```
 */
export interface SlackAdapterOptions {
  /**
   * The Web API client `send` posts with: the Bolt app's `app.client` (it holds the bot token).
   * Give it `rejectRateLimitedCalls: true` in the app's `clientOptions` so a 429 reaches the bus as
   * `rate_limited` instead of the client waiting and retrying on its own.
   */
  readonly client: Pick<webApi.WebClient, 'chat'>;
  /** The channel name, the first part of session keys; `slack` by default. */
  readonly channel?: string;
}

/**
 * Why a request did not reach the bus: an event or interaction the adapter does not map (another
 * event type, a message subtype such as `channel_join`, an action that is not Parley's), or one
 * without a user.
 *
 * @example
 * ```ts
 * import type { SlackSkipReason } from '@parley/slack';
 *
 * const reason: SlackSkipReason = 'no_sender';
 * ```
 */
export type SlackSkipReason = 'unsupported' | 'no_sender';

/**
 * The events of a {@link SlackAdapter}. A failed `send` is not one of them: it rejects, and the bus
 * reports it (`send_failed` result, `dropped` event) with the `SlackAdapterError`.
 *
 * @example
 * ```ts
 * import type { SlackAdapterEvents } from '@parley/slack';
 *
 * const log = (event: SlackAdapterEvents['skipped']) => console.log(event.reason);
 * ```
 */
export interface SlackAdapterEvents {
  /** A request went on to the next middleware without reaching the bus. */
  skipped: { readonly reason: SlackSkipReason; readonly type: string };
  /** Acknowledging a click (`ack()`) failed. */
  error: { readonly code: 'ack_failed'; readonly error: unknown };
}

/**
 * A `ChannelAdapter` on a Bolt app that is also Bolt global middleware (`app.use(slack.middleware)`).
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createSlackAdapter, type SlackAdapter } from '@parley/slack';
 * import { App } from '@slack/bolt';
 *
 * const app = new App({ token: 'xoxb-1', signingSecret: 's', deferInitialization: true });
 * const slack: SlackAdapter = createSlackAdapter({ client: app.client });
 * const bus = createMessageBus();
 * bus.intercept(slack.handoff()); // last: what nothing consumed goes on to the app's listeners
 * ```
 */
export interface SlackAdapter extends ChannelAdapter {
  readonly channel: string;
  /**
   * Posts one message with `chat.postMessage` (a card as Block Kit); resolves to Slack's `ts` of
   * it in ms as `sentAt`, rejects with a `SlackAdapterError`.
   */
  send(message: OutboundMessage): Promise<SendReceipt>;
  /** The Bolt global middleware: `app.use(slack.middleware)`, before the app's listeners. */
  readonly middleware: Middleware<AnyMiddlewareArgs>;
  /**
   * An interceptor to add last on the bus: it consumes every message of this channel that no
   * earlier interceptor (hygiene, the confirm gate) consumed, and the adapter passes those
   * requests on to the app's listeners instead of queueing them for a bus consumer.
   */
  handoff(): InboundInterceptor;
  /** Subscribes to {@link SlackAdapterEvents}. */
  on: Emitter<SlackAdapterEvents>['on'];
}
