import type { Clock } from '@parley/core';

/**
 * Options of {@link createFeishuStandIn}: who the app is, and the clock that stamps events and
 * sent messages. Every field has a default, so `createFeishuStandIn()` is enough.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { FeishuStandInOptions } from '@parley/feishu/testing';
 *
 * const options: FeishuStandInOptions = { clock: createManualClock({ now: 1_767_225_600_000 }), chatId: 'oc_ops' };
 * ```
 */
export interface FeishuStandInOptions {
  /** Stamps `create_time` of events and of sent messages; the system clock by default. */
  readonly clock?: Clock;
  /** The app the token endpoint accepts; `cli_standin` by default. */
  readonly appId?: string;
  /** Its secret; `standin-secret` by default. */
  readonly appSecret?: string;
  /** Events are AES-encrypted and signed with it; `''` sends them as plain JSON. A fixed key by default. */
  readonly encryptKey?: string;
  /** Put in every event's `header.token`, and signs the older card callbacks. */
  readonly verificationToken?: string;
  /** The bot's open id (what a mention of the bot names); `ou_standin_bot` by default. */
  readonly botOpenId?: string;
  /** The chat messages come from when an injector names none; `oc_standin_chat` by default. */
  readonly chatId?: string;
  /** The person who writes and clicks when an injector names none; `ou_standin_user` by default. */
  readonly userOpenId?: string;
}

/**
 * Where the stand-in POSTs: the bot's event request URL, and, for the older card callbacks
 * (a `CardActionHandler`), its card request URL. Without `cards`, clicks are
 * `card.action.trigger` events sent to `events`.
 *
 * @example
 * ```ts
 * import type { FeishuSubscription } from '@parley/feishu/testing';
 *
 * const urls: FeishuSubscription = { events: 'http://127.0.0.1:3000/webhook/event', cards: 'http://127.0.0.1:3000/webhook/card' };
 * ```
 */
export interface FeishuSubscription {
  readonly events: string;
  readonly cards?: string;
}

/**
 * How a message event is written: sender, chat, thread, type and mentions; each has a default.
 *
 * @example
 * ```ts
 * import type { FeishuStandInMessageOptions } from '@parley/feishu/testing';
 *
 * const reply: FeishuStandInMessageOptions = { sender: 'ou_alice', mentionBot: true, rootId: 'om_root', threadId: 'omt_1' };
 * ```
 */
export interface FeishuStandInMessageOptions {
  /** The sender's open id; the stand-in's `userOpenId` by default. */
  readonly sender?: string;
  /** `user` by default; `app` for a message of a bot. */
  readonly senderType?: 'user' | 'app';
  readonly chatId?: string;
  /** `group` by default. */
  readonly chatType?: 'p2p' | 'group';
  /** `text` by default. */
  readonly messageType?: string;
  /** The content object (JSON-encoded into `message.content`); `{ text }` by default. */
  readonly content?: unknown;
  /** Writes `@_user_1 ` before the text with the bot as that mention, as a group reply to the bot is. */
  readonly mentionBot?: boolean;
  /** More mentions: each `key` (`@_user_2`) stands for the member `openId` in the text. */
  readonly mentions?: readonly { readonly key: string; readonly openId: string; readonly name: string }[];
  /** The thread's (or quoted) root message; with `threadId` the message is in a thread. */
  readonly rootId?: string;
  readonly threadId?: string;
  readonly eventId?: string;
  readonly messageId?: string;
}

/**
 * How a recall event is written.
 *
 * @example
 * ```ts
 * import type { FeishuStandInRecallOptions } from '@parley/feishu/testing';
 *
 * const options: FeishuStandInRecallOptions = { chatId: 'oc_ops' };
 * ```
 */
export interface FeishuStandInRecallOptions {
  readonly chatId?: string;
  readonly eventId?: string;
}

/**
 * Who clicks which card: the card's message id is required when building a click body;
 * {@link FeishuStandIn.click} finds it itself.
 *
 * @example
 * ```ts
 * import type { FeishuStandInCardOptions } from '@parley/feishu/testing';
 *
 * const click: FeishuStandInCardOptions = { messageId: 'om_sent_1', user: 'ou_alice' };
 * ```
 */
export interface FeishuStandInCardOptions {
  /** The clicked card's message id. */
  readonly messageId?: string;
  /** Who clicks; the stand-in's `userOpenId` by default. */
  readonly user?: string;
  readonly chatId?: string;
  readonly eventId?: string;
}

/**
 * Options of {@link FeishuStandIn.click}: who clicks, on which card (the last card sent by
 * default), and a `value` to send instead of the button's own (a forged click).
 *
 * @example
 * ```ts
 * import type { FeishuStandInClickOptions } from '@parley/feishu/testing';
 *
 * const forged: FeishuStandInClickOptions = { user: 'ou_mallory', value: { confirmation: 'cfm_1.confirm.x' } };
 * ```
 */
export interface FeishuStandInClickOptions extends FeishuStandInCardOptions {
  readonly value?: unknown;
}

/**
 * One message the bot sent (`im/v1/messages` create or reply, a card as last updated), as the
 * stand-in stored it.
 *
 * @example
 * ```ts
 * import type { FeishuSentMessage } from '@parley/feishu/testing';
 *
 * const labels = (message: FeishuSentMessage): string[] => message.buttons.map((b) => b.label);
 * ```
 */
export interface FeishuSentMessage {
  /** `om_sent_<n>`, counting from 1. */
  readonly messageId: string;
  /** `receive_id`, or the chat of the message replied to. */
  readonly chatId: string;
  readonly msgType: string;
  /** The parsed `content`. */
  readonly content: unknown;
  /** A text message's text; a card's text blocks joined by new lines; `''` otherwise. */
  readonly text: string;
  /** A card's buttons: label and the value a click sends back. */
  readonly buttons: readonly { readonly label: string; readonly value: unknown }[];
  /** The message id a reply answered. */
  readonly replyTo?: string;
  /** `reply_in_thread` was set. */
  readonly inThread: boolean;
  /** The bot updated the card since (`PATCH im/v1/messages/:id`): `content`, `text` and `buttons` are the new ones. */
  readonly updated: boolean;
  /** Its `create_time` (epoch ms, from the clock). */
  readonly createdAt: number;
  /** The request body as the bot posted it. */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * One request the OpenAPI stand-in received, refused ones included.
 *
 * @example
 * ```ts
 * import type { FeishuStandInRequest } from '@parley/feishu/testing';
 *
 * const isToken = (request: FeishuStandInRequest): boolean => request.path.endsWith('/tenant_access_token/internal');
 * ```
 */
export interface FeishuStandInRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly authorization: string | undefined;
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * An answer the next message sends get instead of a success: HTTP status (200 by default), the
 * body and headers, as Feishu answers a rate limit (429, code 99991400, `x-ogw-ratelimit-reset`)
 * or a refusal (230002 the bot is not in the chat, …).
 *
 * @example
 * ```ts
 * import type { FeishuStandInFault } from '@parley/feishu/testing';
 *
 * const limited: FeishuStandInFault = { status: 429, body: { code: 99991400, msg: 'request trigger frequency limit' }, headers: { 'x-ogw-ratelimit-reset': '3' } };
 * ```
 */
export interface FeishuStandInFault {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * What the bot answered one delivered event: HTTP status and the parsed answer (a card click's
 * toast), and how to deliver the same event again (same `event_id`, sealed and signed anew).
 *
 * @example
 * ```ts
 * import type { FeishuDelivery } from '@parley/feishu/testing';
 *
 * const accepted = (delivery: FeishuDelivery): boolean => delivery.status === 200;
 * ```
 */
export interface FeishuDelivery {
  readonly eventId: string | undefined;
  readonly status: number;
  /** The bot's answer, parsed as JSON (its text when it is not JSON; `undefined` when empty). */
  readonly answer: unknown;
  /** Feishu's redelivery of the same event, when it saw no 200 in time. */
  redeliver(): Promise<FeishuDelivery>;
}

/**
 * The refusal of {@link FeishuStandIn.subscribe}: the bot did not answer the `url_verification`
 * challenge (the Feishu console refuses such a request URL).
 *
 * @example
 * ```ts
 * import type { FeishuSubscribeResult } from '@parley/feishu/testing';
 *
 * const result: FeishuSubscribeResult = { ok: false, code: 'challenge_failed', message: 'answered 404' };
 * ```
 */
export type FeishuSubscribeResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 'challenge_failed'; readonly message: string };
