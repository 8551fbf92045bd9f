import type { Unsubscribe } from '@parley/core';
import type { PlatformOrder } from './order.js';
import type { PublishResult } from './results.js';
import type { InboundInput, OutboundMessage } from './message.js';

/**
 * What an adapter calls for each event its platform delivers; the bus fills in the channel.
 *
 * @example
 * ```ts
 * import type { DeliverInbound } from '@parley/bus';
 *
 * async function onWebhook(deliver: DeliverInbound, body: { chat: string; user: string; text: string }) {
 *   await deliver({ chatId: body.chat, senderId: body.user, text: body.text });
 * }
 * ```
 */
export type DeliverInbound = (input: Omit<InboundInput, 'channel'>) => Promise<PublishResult>;

/**
 * What an adapter may report of a message it sent: `sentAt`, the platform's own time stamp of the
 * message (epoch ms), read with the same clock as inbound `createdAt`. A platform that stamps whole
 * seconds gives the end of the stamped second (Telegram: `date × 1000 + 999`), while inbound
 * `createdAt` is the start of its second, so a reply stamped in the prompt's own second is never
 * taken as written after it.
 *
 * @example
 * ```ts
 * import type { SendReceipt } from '@parley/bus';
 *
 * const receipt: SendReceipt = { sentAt: 1_700_000_000_000, messageId: '4711' };
 * ```
 */
export interface SendReceipt {
  readonly sentAt?: number | undefined;
  /** The sent message's place in the platform's per-chat order, when the platform gives one. */
  readonly order?: PlatformOrder | undefined;
  /**
   * The platform's id of the sent message (Telegram `message_id`, Slack `ts`, Feishu `message_id`…),
   * when the adapter knows it: 1–256 characters, otherwise ignored. A consent ledger records it
   * with the delivered prompt.
   */
  readonly messageId?: string | undefined;
}

/**
 * The interface a real bot implements to plug a platform (Feishu, DingTalk, Telegram…) into a
 * {@link MessageBus}: send what the bus publishes for its channel, deliver what the platform
 * receives.
 *
 * Attach it with {@link MessageBus.attach}. `send` may throw or reject: the bus reports that as a
 * `send_failed` result and a `dropped` event, never as an exception in the publisher.
 *
 * @example
 * ```ts
 * import { createMessageBus, type ChannelAdapter, type DeliverInbound } from '@parley/bus';
 *
 * const sent: string[] = [];
 * let deliver: DeliverInbound | undefined;
 * const adapter: ChannelAdapter = {
 *   channel: 'console',
 *   send: (message) => {
 *     sent.push(message.text);
 *   },
 *   connect: (d) => {
 *     deliver = d;
 *     return () => {
 *       deliver = undefined;
 *     };
 *   },
 * };
 * const bus = createMessageBus();
 * const detach = await bus.attach(adapter);
 * await deliver?.({ chatId: 'c1', senderId: 'u1', text: 'hello' });
 * await bus.publishOutbound({ channel: 'console', chatId: 'c1', text: 'hi back' });
 * console.log(sent); // [ 'hi back' ]
 * detach();
 * ```
 */
export interface ChannelAdapter {
  /** The channel name this adapter serves; the first part of its session keys. */
  readonly channel: string;
  /**
   * Sends one outbound message of this channel to the platform. It may resolve to a
   * {@link SendReceipt} carrying the platform's own time stamp of the sent message.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async send() {}` type-check
  send(message: OutboundMessage): void | SendReceipt | Promise<void | SendReceipt>;
  /** Starts delivering inbound events; may return a function that stops it. */
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async connect() {}` type-check
  connect?(deliver: DeliverInbound): void | Unsubscribe | Promise<void | Unsubscribe>;
}
