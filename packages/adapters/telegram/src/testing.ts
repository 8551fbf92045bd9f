/**
 * A stand-in of the Telegram Bot API for testing a grammY bot offline (Node only): a loopback HTTP
 * server the bot talks to through `client.apiRoot`, that delivers users' messages, edits and
 * button clicks by long polling or webhook and records what the bot sent. Import it from
 * `@parley/telegram/testing`; the main entry stays free of `node:` modules.
 *
 * @packageDocumentation
 * @module @parley/telegram/testing
 */
export { createTelegramStandIn } from './standin.js';
export type {
  TelegramDelivery,
  TelegramStandIn,
  TelegramStandInCall,
  TelegramStandInFailure,
  TelegramStandInOptions,
} from './standin-types.js';
export type {
  TelegramClickOptions,
  TelegramMessageOptions,
  TelegramStandInChat,
  TelegramStandInClickUpdate,
  TelegramStandInMessage,
  TelegramStandInMessageUpdate,
  TelegramStandInUpdate,
  TelegramStandInUpdates,
  TelegramStandInUser,
} from './standin-update-types.js';
