/**
 * An Events API request body as Slack posts it (`type: 'event_callback'` around one `event`), or
 * any other body a test sends.
 *
 * @example
 * ```ts
 * import type { SlackEventBody } from '@parley/slack/testing';
 *
 * const body: SlackEventBody = { type: 'event_callback', event_id: 'Ev01', event: { type: 'message', text: 'hi' } };
 * ```
 */
export interface SlackEventBody {
  readonly type: string;
  readonly event_id?: string;
  readonly event?: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

/**
 * An interactivity payload as Slack posts it (`payload=` of a form), e.g. `block_actions`.
 *
 * @example
 * ```ts
 * import type { SlackInteraction } from '@parley/slack/testing';
 *
 * const kind = (payload: SlackInteraction): string => payload.type;
 * ```
 */
export interface SlackInteraction {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * An `event_callback` body built by the stand-in: the envelope around one `event`, with its
 * `event_id` and `event_time` (Unix seconds).
 *
 * @example
 * ```ts
 * import type { SlackEventCallback } from '@parley/slack/testing';
 *
 * const kindOf = (body: SlackEventCallback): unknown => body.event['type'];
 * ```
 */
export interface SlackEventCallback extends SlackEventBody {
  readonly event_id: string;
  readonly event_time: number;
  readonly event: Readonly<Record<string, unknown>>;
}

/**
 * A message event body built by the stand-in: `event` is Slack's `message` event.
 *
 * @example
 * ```ts
 * import type { SlackMessageBody } from '@parley/slack/testing';
 *
 * const tsOf = (body: SlackMessageBody): string => body.event.ts;
 * ```
 */
export interface SlackMessageBody extends SlackEventCallback {
  readonly event: {
    readonly type: string;
    readonly channel: string;
    readonly user: string;
    readonly text: string;
    readonly ts: string;
    readonly [field: string]: unknown;
  };
}

/**
 * What a member's message looks like: its `user`, `channel` (and `channelType`), when it was
 * written (`at`, epoch ms; now on the clock by default), its thread (`threadTs`) and the last six
 * digits of its `ts` (`seq`; the stand-in counts them up by default, so every ts is unique).
 *
 * @example
 * ```ts
 * import type { SlackMessageOptions } from '@parley/slack/testing';
 *
 * const inThread: SlackMessageOptions = { threadTs: '1767225600.000100', user: 'U0BOB00001' };
 * ```
 */
export interface SlackMessageOptions {
  readonly user?: string;
  readonly at?: number;
  readonly channel?: string;
  readonly channelType?: 'channel' | 'group' | 'im' | 'mpim';
  readonly threadTs?: string;
  readonly seq?: number;
}

/**
 * Who clicks (`user`), when (`at`), on which message (`messageTs`, by default the last card the
 * app posted) and thread, and the `actionId` of a button that is not on the card.
 *
 * @example
 * ```ts
 * import type { SlackClickOptions } from '@parley/slack/testing';
 *
 * const asBob: SlackClickOptions = { user: 'U0BOB00001' };
 * ```
 */
export interface SlackClickOptions {
  readonly user?: string;
  readonly at?: number;
  readonly messageTs?: string;
  readonly threadTs?: string;
  readonly actionId?: string;
}

/**
 * Builders of Events API bodies and interactivity payloads in Slack's documented shapes, with the
 * stand-in's team, app and event ids, without delivering them.
 *
 * @example
 * ```ts
 * import { createSlackStandIn } from '@parley/slack/testing';
 *
 * const slack = await createSlackStandIn();
 * const body = slack.payloads.message('hi');
 * console.log(body.type, body.event.type, body.event.text); // event_callback message hi
 * await slack.close();
 * ```
 */
export interface SlackStandInPayloads {
  /** A member's new message (a `message` event). */
  message(text: string, options?: SlackMessageOptions): SlackMessageBody;
  /** The `app_mention` event Slack sends too when a message mentions the app. */
  mention(message: SlackMessageBody): SlackEventCallback;
  /** A `message_changed` event: the message with its new text and `edited` stamp. */
  edit(original: SlackMessageBody, text: string, options?: { readonly at?: number }): SlackEventCallback;
  /** A `message_deleted` event. */
  delete(original: SlackMessageBody, options?: { readonly at?: number }): SlackEventCallback;
  /** A `bot_message` from another integration (`botId`). */
  botMessage(text: string, options?: { readonly at?: number; readonly botId?: string }): SlackEventCallback;
  /**
   * A `block_actions` click: `button` is a button's label, `action_id` or `value` on the card; any
   * other string is sent as the button's `value` (a stale or forged button).
   */
  click(button: string, options?: SlackClickOptions): SlackInteraction;
  /** The Events API envelope around any event, written at `at` (epoch ms). */
  envelope(event: Readonly<Record<string, unknown>>, at?: number): SlackEventCallback;
}
