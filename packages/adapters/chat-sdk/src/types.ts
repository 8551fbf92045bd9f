import type { ChannelAdapter, OutboundMessage, SendReceipt } from '@parley/bus';
import type { Unsubscribe } from '@parley/core';
import type { Chat, Message } from 'chat';
import type { ChatSdkAdapterError } from './errors.js';

/**
 * What the adapter needs of a Chat SDK bot (a `new Chat({ … })`): its handler registration and its
 * `thread` / `channel` lookups.
 *
 * @example
 * ```ts
 * import type { ChatSdkBot } from '@parley/chat-sdk';
 *
 * const post = (bot: ChatSdkBot, threadId: string) => bot.thread(threadId).post('hello');
 * ```
 */
export type ChatSdkBot = Pick<
  Chat,
  | 'onNewMention'
  | 'onSubscribedMessage'
  | 'onNewMessage'
  | 'onMessageUpdated'
  | 'onAction'
  | 'thread'
  | 'channel'
>;

/**
 * Options of {@link createChatSdkAdapter}.
 *
 * @example
 * ```ts
 * import type { ChatSdkAdapterOptions } from '@parley/chat-sdk';
 *
 * const options = (bot: ChatSdkAdapterOptions['bot']): ChatSdkAdapterOptions => ({ bot, channel: 'chat' });
 * ```
 */
export interface ChatSdkAdapterOptions {
  /** The Chat SDK bot; the adapter registers its handlers on it once, at creation. */
  readonly bot: ChatSdkBot;
  /** The bus channel name; `chat-sdk` by default. Chat ids carry the platform (`discord:…`). */
  readonly channel?: string;
  /**
   * A message's place in its platform's order, for platforms the adapter does not read itself
   * (it reads Discord snowflakes and Slack `ts`); `undefined` gives no order.
   */
  readonly order?: (platform: string, message: Message) => readonly number[] | undefined;
}

/**
 * Why the adapter passed something over without handing it to the bus.
 *
 * @example
 * ```ts
 * import type { ChatSdkSkipReason } from '@parley/chat-sdk';
 *
 * const reason: ChatSdkSkipReason = 'not_connected';
 * ```
 */
export type ChatSdkSkipReason = 'not_connected' | 'foreign_button' | 'bad_button_value';

/**
 * The events of a {@link ChatSdkAdapter}.
 *
 * @example
 * ```ts
 * import type { ChatSdkAdapterEvents } from '@parley/chat-sdk';
 *
 * const describeSkip = (event: ChatSdkAdapterEvents['skipped']): string => `${event.reason} ${event.threadId}`;
 * ```
 */
export interface ChatSdkAdapterEvents {
  /** Something came in that the adapter did not hand to the bus, and why. */
  skipped: { readonly reason: ChatSdkSkipReason; readonly threadId: string };
  /** A send that failed, as the typed error `send` rejects with. */
  error: { readonly error: ChatSdkAdapterError };
}

/**
 * A `ChannelAdapter` over a Chat SDK bot, with its events.
 *
 * @example
 * ```ts
 * import type { ChatSdkAdapter } from '@parley/chat-sdk';
 *
 * const name = (adapter: ChatSdkAdapter): string => adapter.channel;
 * ```
 */
export interface ChatSdkAdapter extends ChannelAdapter {
  readonly channel: string;
  /**
   * Posts one message (a card with its buttons when it has one) to its thread or channel; resolves
   * to the platform's time and order of the posted message, rejects with a `ChatSdkAdapterError`.
   */
  send(message: OutboundMessage): Promise<SendReceipt>;
  /** Listens to one of the adapter's events. */
  on<K extends keyof ChatSdkAdapterEvents>(
    event: K,
    listener: (payload: ChatSdkAdapterEvents[K]) => void,
  ): Unsubscribe;
}
