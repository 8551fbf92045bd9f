import type { Clock } from '@parley/core';
import type {
  SlackClickOptions,
  SlackEventBody,
  SlackInteraction,
  SlackMessageBody,
  SlackMessageOptions,
  SlackStandInPayloads,
} from './standin-payload-types.js';

/**
 * How a request reached the app: `ok` once the app acknowledged it (HTTP: a 2xx answer, with
 * `status`; Socket Mode: the envelope's acknowledgement). Refused: `request_refused` (another
 * status, e.g. 401 for a bad signature), `request_unreachable` (no answer), `not_connected` (no
 * Request URL set and no Socket Mode connection), `closed` (the stand-in closed first).
 *
 * @example
 * ```ts
 * import type { SlackDelivery } from '@parley/slack/testing';
 *
 * const acknowledged = (delivery: SlackDelivery): boolean => delivery.ok;
 * ```
 */
export type SlackDelivery =
  | { readonly ok: true; readonly status?: number }
  | {
      readonly ok: false;
      readonly code: 'request_refused' | 'request_unreachable' | 'not_connected' | 'closed';
      readonly message: string;
      readonly status?: number;
    };

/**
 * How to deliver: `retry` counts Slack's redeliveries of the same event (`X-Slack-Retry-Num`, or
 * `retry_attempt` in Socket Mode), and `signingSecret` signs with another secret (a forged request).
 *
 * @example
 * ```ts
 * import type { SlackDeliverOptions } from '@parley/slack/testing';
 *
 * const redelivery: SlackDeliverOptions = { retry: 1 };
 * ```
 */
export interface SlackDeliverOptions {
  readonly retry?: number;
  readonly signingSecret?: string;
}

/**
 * One Web API call the app made: the method and its parameters (`blocks` parsed from its JSON).
 *
 * @example
 * ```ts
 * import type { SlackStandInCall } from '@parley/slack/testing';
 *
 * const textOf = (call: SlackStandInCall): unknown => call.params['text'];
 * ```
 */
export interface SlackStandInCall {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A Web API failure to script with `failNext`: Slack's `{ ok: false, error }`, a 429 with
 * `Retry-After`, a 500, or a dropped connection.
 *
 * @example
 * ```ts
 * import type { SlackStandInFailure } from '@parley/slack/testing';
 *
 * const slowDown: SlackStandInFailure = { status: 429, retryAfter: 30 };
 * ```
 */
export type SlackStandInFailure =
  | { readonly error: string }
  | { readonly status: 429; readonly retryAfter: number }
  | { readonly status: 500 }
  | { readonly drop: true };

/**
 * Options of {@link createSlackStandIn}: the `clock` of message `ts`s, `signingClock` (the time
 * requests are signed with, which Bolt checks against its own clock: the system clock by
 * default), the bot `token`, `appToken` (Socket Mode), `signingSecret`, and the default `user`
 * and `channel` of members' messages.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { SlackStandInOptions } from '@parley/slack/testing';
 *
 * const options: SlackStandInOptions = { clock: createManualClock({ now: 1_767_225_600_000 }), channel: 'C0OPS00001' };
 * ```
 */
export interface SlackStandInOptions {
  readonly clock?: Clock;
  readonly signingClock?: Clock;
  readonly token?: string;
  readonly appToken?: string;
  readonly signingSecret?: string;
  readonly user?: string;
  readonly channel?: string;
}

/**
 * A stand-in of Slack's Web API, Events API, interactivity and Socket Mode on 127.0.0.1 (see
 * {@link createSlackStandIn}).
 *
 * @example
 * ```ts
 * import { createSlackStandIn, type SlackStandIn } from '@parley/slack/testing';
 *
 * const slack: SlackStandIn = await createSlackStandIn();
 * console.log(slack.url.endsWith('/api/'), slack.sent.length); // true 0
 * await slack.close();
 * ```
 */
export interface SlackStandIn {
  /** The Web API base URL: Bolt's `clientOptions.slackApiUrl` (and the Socket Mode receiver's). */
  readonly url: string;
  /** The bot token the Web API accepts. */
  readonly token: string;
  /** The app-level token `apps.connections.open` accepts (Socket Mode). */
  readonly appToken: string;
  /** The secret requests to the app are signed with (Bolt's `signingSecret`). */
  readonly signingSecret: string;
  /** The bot's user id, bot id and team id (`auth.test`). */
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  /** Who writes and clicks, and where, unless a payload says otherwise. */
  readonly user: string;
  readonly channel: string;
  /** What the app sent: its successful `chat.postMessage` and `chat.update` calls, in order. */
  readonly sent: readonly SlackStandInCall[];
  /** Builders of bodies and payloads, not delivered. */
  readonly payloads: SlackStandInPayloads;
  /** Every Web API call of `method` (refused ones included), in order. */
  calls(method: string): SlackStandInCall[];
  /** Resolves with the `count`-th call of `method` once taken in; rejects (`closed`) on close. */
  waitFor(method: string, count?: number): Promise<SlackStandInCall>;
  /** Where HTTP deliveries go: the app's Request URL (e.g. `http://127.0.0.1:3000/slack/events`). */
  setRequestUrl(url: string | undefined): void;
  /** Slack's signature headers for `body` (`X-Slack-Request-Timestamp`, `X-Slack-Signature`). */
  sign(
    body: string,
    options?: { readonly at?: number; readonly signingSecret?: string },
  ): Record<string, string>;
  /** A member writes `text`: delivers a `message` event. */
  message(
    text: string,
    options?: SlackMessageOptions,
  ): Promise<SlackDelivery & { readonly body: SlackMessageBody }>;
  /** A member clicks a button of the app's card (by label, `action_id` or `value`). */
  click(button: string, options?: SlackClickOptions): Promise<SlackDelivery>;
  /** Delivers an Events API body: by Socket Mode when the app is connected, else signed to the Request URL. */
  deliver(body: SlackEventBody, options?: SlackDeliverOptions): Promise<SlackDelivery>;
  /** Delivers an interactivity payload, the same way. */
  interact(payload: SlackInteraction, options?: SlackDeliverOptions): Promise<SlackDelivery>;
  /** The authorization headers `apps.connections.open` was called with, in order. */
  connections(): (string | undefined)[];
  /** The next call of `method` fails as scripted. */
  failNext(method: string, failure: SlackStandInFailure): void;
  /** Reshapes the next `chat.postMessage` answer (the whole JSON body). */
  reshapeNextPost(reshape: (answer: Record<string, unknown>) => Record<string, unknown>): void;
  /** Ends pending deliveries and waits (`closed`), closes sockets and stops listening. */
  close(): Promise<void>;
}
