import type { ChannelAdapter, OutboundMessage, PublishResult, SendReceipt } from '@parley/bus';
import type { FeishuAdapterError } from './errors.js';
import type { FeishuCardAction, FeishuMessageEvent, FeishuRecallEvent } from './inbound.js';

/**
 * What an OpenAPI call of the SDK resolves to: `code` 0 and `data` on success.
 *
 * @example
 * ```ts
 * import type { FeishuApiAnswer } from '@parley/feishu';
 *
 * const answer: FeishuApiAnswer = { code: 0, msg: 'success', data: { message_id: 'om_1' } };
 * ```
 */
export interface FeishuApiAnswer {
  readonly code?: number | undefined;
  readonly msg?: string | undefined;
  readonly data?: unknown;
}

/**
 * The part of the SDK's `Client` the adapter sends with: `client.im.message.create` and `reply`.
 * A `new lark.Client({ appId, appSecret })` is one.
 *
 * @example
 * ```ts
 * import type { FeishuClient } from '@parley/feishu';
 *
 * const client: FeishuClient = {
 *   im: { message: {
 *     create: async () => ({ code: 0, data: { message_id: 'om_1', create_time: '1767225600000' } }),
 *     reply: async () => ({ code: 0, data: { message_id: 'om_2', create_time: '1767225600000' } }),
 *   } },
 * };
 * ```
 */
export interface FeishuClient {
  readonly im: {
    readonly message: {
      /** `POST /open-apis/im/v1/messages`. */
      create(payload: {
        params: { receive_id_type: 'chat_id' };
        data: { receive_id: string; msg_type: string; content: string };
      }): Promise<FeishuApiAnswer>;
      /** `POST /open-apis/im/v1/messages/:message_id/reply`. */
      reply(payload: {
        path: { message_id: string };
        data: { msg_type: string; content: string; reply_in_thread?: boolean };
      }): Promise<FeishuApiAnswer>;
    };
  };
}

/**
 * The part of the SDK's `EventDispatcher` the adapter registers its handlers on.
 *
 * @example
 * ```ts
 * import type { FeishuDispatcher } from '@parley/feishu';
 *
 * const handles = new Map<string, unknown>();
 * const dispatcher: FeishuDispatcher = {
 *   register: (h) => {
 *     for (const [k, v] of Object.entries(h)) handles.set(k, v);
 *   },
 * };
 * ```
 */
export interface FeishuDispatcher {
  /** Adds (or replaces) the handlers of these event keys. */
  register(handles: FeishuEventHandles): unknown;
  /** Removes the handlers of these event keys; called on detach when present. */
  unregister?(...keys: string[]): unknown;
}

/**
 * The event handlers of a {@link FeishuAdapter}, by the SDK's event keys.
 *
 * @example
 * ```ts
 * import type { FeishuEventHandles } from '@parley/feishu';
 *
 * const keys: (keyof FeishuEventHandles)[] = ['im.message.receive_v1', 'im.message.recalled_v1', 'card.action.trigger'];
 * ```
 */
export interface FeishuEventHandles {
  /** A message sent to the bot (direct) or in a group it is in. */
  'im.message.receive_v1': (event: FeishuMessageEvent) => Promise<void>;
  /** A message was recalled. */
  'im.message.recalled_v1': (event: FeishuRecallEvent) => Promise<void>;
  /** A card button was clicked; resolves to the answer shown to the user. */
  'card.action.trigger': (click: FeishuCardAction) => Promise<FeishuCardResponse>;
}

/**
 * What a card callback answers Feishu: a toast shown to the user who clicked.
 *
 * @example
 * ```ts
 * import type { FeishuCardResponse } from '@parley/feishu';
 *
 * const answer: FeishuCardResponse = { toast: { type: 'success', content: '已确认' } };
 * ```
 */
export interface FeishuCardResponse {
  readonly toast?: { readonly type: 'info' | 'success' | 'error' | 'warning'; readonly content: string };
}

/**
 * Options for {@link createFeishuAdapter}.
 *
 * @example
 * ```ts
 * import * as lark from '@larksuiteoapi/node-sdk';
 * import type { FeishuAdapterOptions } from '@parley/feishu';
 * const client = new lark.Client({ appId: 'cli_example', appSecret: 'secret' }); // sends nothing yet
 * const options: FeishuAdapterOptions = { client, botOpenId: 'ou_bot', maxRememberedMessages: 500 };
 * ```
 */
export interface FeishuAdapterOptions {
  /** The SDK client that sends (`new lark.Client({ appId, appSecret, domain })`). */
  readonly client: FeishuClient;
  /** The bot's own open id: its mentions are stripped, its own messages marked `fromSelf`. */
  readonly botOpenId: string;
  /** The channel name in session keys; `feishu` by default. */
  readonly channel?: string;
  /** When given, `connect` registers the handlers on it and detaching unregisters them. */
  readonly dispatcher?: FeishuDispatcher;
  /** Message ids remembered (for threads of clicks, recalls, `replyTo`); 1000 by default. */
  readonly maxRememberedMessages?: number;
  /** The toast a click gets, from the bus's result (absent when no bus was attached). */
  readonly toast?: (result: PublishResult | undefined) => FeishuCardResponse;
  /** Hears events that could not reach the bus (`not_delivered`). */
  readonly onError?: (error: FeishuAdapterError) => void;
}

/**
 * A `ChannelAdapter` for Feishu / Lark, plus the handlers its `EventDispatcher` and
 * `CardActionHandler` call.
 *
 * @example
 * ```ts
 * import type { FeishuAdapter } from '@parley/feishu';
 *
 * function channelOf(adapter: FeishuAdapter): string {
 *   return adapter.channel;
 * }
 * ```
 */
export interface FeishuAdapter extends ChannelAdapter {
  /** Sends one message (create, or reply in a thread); resolves to Feishu's `create_time` as `sentAt`. */
  send(message: OutboundMessage): Promise<SendReceipt>;
  /** Register these on an `EventDispatcher` (or pass `dispatcher` and `connect` does it). */
  readonly handles: FeishuEventHandles;
  /** The `cardHandler` of a `CardActionHandler` (older card callbacks). */
  handleCardAction(click: FeishuCardAction): Promise<FeishuCardResponse>;
}
