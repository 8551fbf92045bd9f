import { type Clock, systemClock } from '@parley/core';
import {
  type DeliverState,
  deliverClick,
  deliverEvent,
  verifySubscription,
} from './internal/standin-deliver.js';
import { startOpenApi } from './internal/standin-openapi.js';
import { cardCallbackOf, cardEventOf, messageEventOf, recallEventOf } from './internal/standin-payloads.js';
import type {
  FeishuDelivery,
  FeishuSentMessage,
  FeishuStandInCardOptions,
  FeishuStandInClickOptions,
  FeishuStandInFault,
  FeishuStandInMessageOptions,
  FeishuStandInOptions,
  FeishuStandInRecallOptions,
  FeishuStandInRequest,
  FeishuSubscribeResult,
  FeishuSubscription,
} from './standin-types.js';

/**
 * A stand-in of Feishu on 127.0.0.1, made by {@link createFeishuStandIn}: the OpenAPI the SDK's
 * `Client` sends with (point its `domain` at `url`), and the platform side of event
 * subscription, which POSTs documented event bodies, encrypted and signed, to the bot's webhook.
 *
 * @example
 * ```ts
 * import { createFeishuStandIn, type FeishuStandIn } from '@parley/feishu/testing';
 *
 * const feishu: FeishuStandIn = await createFeishuStandIn();
 * console.log(feishu.url.startsWith('http://127.0.0.1:'), feishu.sent.length); // true 0
 * await feishu.close();
 * ```
 */
export interface FeishuStandIn {
  /** The OpenAPI's base URL, `http://127.0.0.1:<port>`: the SDK `Client`'s `domain`. */
  readonly url: string;
  readonly appId: string;
  readonly appSecret: string;
  /** Give it to the bot's `EventDispatcher` (`''` when events go as plain JSON). */
  readonly encryptKey: string;
  /** Give it to the bot's `CardActionHandler`. */
  readonly verificationToken: string;
  readonly botOpenId: string;
  /** The chat of injected messages when they name none. */
  readonly chatId: string;
  /** Every message the bot sent, in order. */
  readonly sent: readonly FeishuSentMessage[];
  /** Every request the OpenAPI received, refused ones included. */
  readonly requests: readonly FeishuStandInRequest[];
  /**
   * Sets the bot's request URLs and, as the Feishu console does, checks the event URL with a
   * `url_verification` challenge (sealed like an event); a URL that does not answer it is refused.
   */
  subscribe(subscription: FeishuSubscription): Promise<FeishuSubscribeResult>;
  /** Someone writes `text` (an im.message.receive_v1 event). */
  message(text: string, options?: FeishuStandInMessageOptions): Promise<FeishuDelivery>;
  /** The sender recalls a message (im.message.recalled_v1). */
  recall(messageId: string, options?: FeishuStandInRecallOptions): Promise<FeishuDelivery>;
  /**
   * Someone clicks the button labelled `button` (the exact label, or a pattern) on the card the
   * bot sent last (or on `options.messageId`): a `card.action.trigger` event, or the older card
   * callback when the subscription has a `cards` URL.
   *
   * @throws FeishuAdapterError `invalid_argument` when no such card or button was sent.
   */
  click(button: string | RegExp, options?: FeishuStandInClickOptions): Promise<FeishuDelivery>;
  /** POSTs any event body, sealed and signed (to `cards`: an older card callback, signed with the token). */
  event(
    body: Record<string, unknown>,
    options?: { readonly to?: 'events' | 'cards' },
  ): Promise<FeishuDelivery>;
  /** The body `message` would send, to change before `event` sends it. */
  messageEvent(text: string, options?: FeishuStandInMessageOptions): Record<string, unknown>;
  /** The body `recall` would send. */
  recallEvent(messageId: string, options?: FeishuStandInRecallOptions): Record<string, unknown>;
  /** A `card.action.trigger` body for a click on a button carrying `value`. */
  cardEvent(value: unknown, options?: FeishuStandInCardOptions): Record<string, unknown>;
  /** An older card callback body (for `event(body, { to: 'cards' })`). */
  cardCallback(value: unknown, options?: FeishuStandInCardOptions): Record<string, unknown>;
  /** Resolves with the `count`-th message the bot sent (1 by default), at once when it was sent. */
  waitForSent(count?: number): Promise<FeishuSentMessage>;
  /** The next message sends (create or reply) get these answers, in order, instead of a success. */
  failNext(...faults: FeishuStandInFault[]): void;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

/** The Encrypt Key of a stand-in made without one. */
const DEFAULT_ENCRYPT_KEY = 'standin-encrypt-key';

/**
 * Starts a stand-in of Feishu on 127.0.0.1 (see {@link FeishuStandIn}) for testing a bot offline
 * with the real `@larksuiteoapi/node-sdk`: its `Client` sends to the stand-in's OpenAPI, and the
 * stand-in delivers messages, recalls and card clicks to the bot's webhook in Feishu's
 * documented shapes. Node only; needs `@parley/testing` (an optional peer).
 *
 * @example
 * ```ts
 * import * as lark from '@larksuiteoapi/node-sdk';
 * import { createFeishuStandIn } from '@parley/feishu/testing';
 * import { serveLoopback } from '@parley/testing/loopback';
 *
 * const feishu = await createFeishuStandIn();
 * const client = new lark.Client({ appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url });
 * const dispatcher = new lark.EventDispatcher({ encryptKey: feishu.encryptKey }).register({
 *   'im.message.receive_v1': async ({ message }) => {
 *     const { text } = JSON.parse(message.content) as { text: string };
 *     await client.im.message.create({
 *       params: { receive_id_type: 'chat_id' },
 *       data: { receive_id: message.chat_id, msg_type: 'text', content: JSON.stringify({ text: text.toUpperCase() }) },
 *     });
 *   },
 * });
 * const bot = await serveLoopback(lark.adaptDefault('/event', dispatcher, { autoChallenge: true }));
 * console.log(await feishu.subscribe({ events: `${bot.url}/event` })); // { ok: true }
 * await feishu.message('hello');
 * console.log((await feishu.waitForSent()).text); // HELLO
 * await bot.close();
 * await feishu.close();
 * ```
 */
export async function createFeishuStandIn(options: FeishuStandInOptions = {}): Promise<FeishuStandIn> {
  const clock: Clock = options.clock ?? systemClock;
  let counter = 0;
  const chats = new Map<string, string>();
  const app = {
    appId: options.appId ?? 'cli_standin',
    appSecret: options.appSecret ?? 'standin-secret',
    encryptKey: options.encryptKey ?? DEFAULT_ENCRYPT_KEY,
    verificationToken: options.verificationToken ?? 'standin-verification-token',
    tenantKey: 'standin_tenant',
    botOpenId: options.botOpenId ?? 'ou_standin_bot',
    chatId: options.chatId ?? 'oc_standin_chat',
    userOpenId: options.userOpenId ?? 'ou_standin_user',
    next: () => ++counter,
    now: () => clock.now(),
  };
  const api = await startOpenApi({ ...app, chatOf: (messageId) => chats.get(messageId) });
  let subscription: FeishuSubscription | undefined;

  const stamp = () => ({ timestamp: String(Math.floor(clock.now() / 1000)), nonce: `n${++counter}` });
  const delivering: DeliverState = { app, stamp, subscription: () => subscription };
  const event = (body: Record<string, unknown>, to?: 'events' | 'cards'): Promise<FeishuDelivery> =>
    deliverEvent(delivering, body, to);

  return {
    url: api.server.url,
    appId: app.appId,
    appSecret: app.appSecret,
    encryptKey: app.encryptKey,
    verificationToken: app.verificationToken,
    botOpenId: app.botOpenId,
    chatId: app.chatId,
    sent: api.sent,
    get requests() {
      return api.requests;
    },
    async subscribe(next) {
      const result = await verifySubscription(delivering, `challenge-${++counter}`, next);
      if (result.ok) subscription = next;
      return result;
    },
    message(text, more) {
      const body = messageEventOf(app, text, more);
      const message = (body['event'] as { message: { message_id: string; chat_id: string } }).message;
      chats.set(message.message_id, message.chat_id);
      return event(body);
    },
    recall: (messageId, more) => event(recallEventOf(app, messageId, more)),
    click: (button, more = {}) => deliverClick(delivering, api.sent, button, more),
    event: (body, more) => event(body, more?.to),
    messageEvent: (text, more) => messageEventOf(app, text, more),
    recallEvent: (messageId, more) => recallEventOf(app, messageId, more),
    cardEvent: (value, more = {}) => cardEventOf(app, value, more),
    cardCallback: (value, more = {}) => cardCallbackOf(app, value, more),
    waitForSent: (count = 1) => api.waitForSent(count),
    failNext: (...faults) => api.failNext(faults),
    close: () => api.server.close(),
  };
}
