/**
 * Telegram for Parley: a `ChannelAdapter` for `@parley/bus` on a grammY bot (polling or webhook).
 * Messages, edits, forum topics, mentions of the bot and clicks on Parley's inline buttons go to
 * the bus; the bus's messages and confirm/cancel cards go out through `sendMessage` with an inline
 * keyboard; Bot API refusals and rate limits come back as typed errors.
 *
 * @packageDocumentation
 * @module @parley/telegram
 */
export { createTelegramAdapter } from './adapter.js';
export { MAX_CALLBACK_DATA_BYTES } from './callback-data.js';
export { DEFAULT_BUTTON_TTL_MS } from './types.js';
export type {
  TelegramAdapter,
  TelegramAdapterOptions,
  TelegramAdapterEvents,
  TelegramSkipReason,
} from './types.js';
export { TelegramAdapterError, TELEGRAM_ADAPTER_ERROR_CODES } from './errors.js';
export type { TelegramAdapterErrorCode } from './errors.js';
