/**
 * Vercel's Chat SDK for Parley: a `ChannelAdapter` for `@parley/bus` over a Chat SDK bot (`chat`
 * with its `@chat-adapter/*` platforms: Discord, Teams, Slack, Google Chat, WhatsApp…). Messages,
 * edits, mentions and thread identity go to the bus with the platform's order; the bus's messages
 * and confirm/cancel cards go out as Chat SDK posts and cards; clicks come back as card events;
 * rate limits and refusals are typed errors.
 *
 * @packageDocumentation
 * @module @parley/chat-sdk
 */
export { createChatSdkAdapter, PARLEY_ACTION_ID } from './adapter.js';
export { placeOfId } from './order.js';
export type { IdPlace } from './order.js';
export type {
  ChatSdkAdapter,
  ChatSdkAdapterEvents,
  ChatSdkAdapterOptions,
  ChatSdkBot,
  ChatSdkSkipReason,
} from './types.js';
export { ChatSdkAdapterError, CHAT_SDK_ADAPTER_ERROR_CODES } from './errors.js';
export type { ChatSdkAdapterErrorCode } from './errors.js';
