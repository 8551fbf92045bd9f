/**
 * A Telegram `User` as the Bot API documents it (the fields the stand-in fills; a test may add
 * any other documented field).
 *
 * @example
 * ```ts
 * import type { TelegramStandInUser } from '@parley/telegram/testing';
 *
 * const alice: TelegramStandInUser = { id: 7002, is_bot: false, first_name: 'Alice', username: 'alice_ops' };
 * ```
 */
export interface TelegramStandInUser {
  readonly id: number;
  readonly is_bot: boolean;
  readonly first_name: string;
  readonly username?: string;
  readonly [field: string]: unknown;
}

/**
 * A Telegram `Chat`: `private` (its id is the user's id), `group`, `supergroup` (ids below zero)
 * or `channel`.
 *
 * @example
 * ```ts
 * import type { TelegramStandInChat } from '@parley/telegram/testing';
 *
 * const ops: TelegramStandInChat = { id: -1001234567890, type: 'supergroup', title: 'Ops' };
 * ```
 */
export interface TelegramStandInChat {
  readonly id: number;
  readonly type: 'private' | 'group' | 'supergroup' | 'channel';
  readonly title?: string;
  readonly [field: string]: unknown;
}

/**
 * A Telegram `Message` as the stand-in builds it (a user's message, or one the bot sent).
 *
 * @example
 * ```ts
 * import type { TelegramStandInMessage } from '@parley/telegram/testing';
 *
 * const message: TelegramStandInMessage = {
 *   message_id: 101,
 *   chat: { id: 7002, type: 'private' },
 *   date: 1767225600,
 *   text: 'hi',
 * };
 * ```
 */
export interface TelegramStandInMessage {
  readonly message_id: number;
  readonly chat: TelegramStandInChat;
  readonly date: number;
  readonly from?: TelegramStandInUser;
  readonly text?: string;
  readonly [field: string]: unknown;
}

/**
 * A Telegram `Update`: its `update_id` and one of `message`, `edited_message`,
 * `callback_query`, … (any documented shape, malformed ones included, for a test to send).
 *
 * @example
 * ```ts
 * import type { TelegramStandInUpdate } from '@parley/telegram/testing';
 *
 * const post: TelegramStandInUpdate = {
 *   update_id: 900000001,
 *   channel_post: { message_id: 7, chat: { id: -100777, type: 'channel' }, date: 1767225600, text: 'x' },
 * };
 * ```
 */
export interface TelegramStandInUpdate {
  readonly update_id: number;
  readonly [field: string]: unknown;
}

/**
 * A user's message update built by the stand-in (see {@link TelegramStandInUpdates}).
 *
 * @example
 * ```ts
 * import type { TelegramStandInMessageUpdate } from '@parley/telegram/testing';
 *
 * const text = (update: TelegramStandInMessageUpdate): string | undefined => update.message.text;
 * ```
 */
export interface TelegramStandInMessageUpdate extends TelegramStandInUpdate {
  readonly message: TelegramStandInMessage;
}

/**
 * A click update built by the stand-in: a `callback_query` on a message the bot sent.
 *
 * @example
 * ```ts
 * import type { TelegramStandInClickUpdate } from '@parley/telegram/testing';
 *
 * const data = (update: TelegramStandInClickUpdate): string => update.callback_query.data;
 * ```
 */
export interface TelegramStandInClickUpdate extends TelegramStandInUpdate {
  readonly callback_query: {
    readonly id: string;
    readonly from: TelegramStandInUser;
    readonly message: TelegramStandInMessage;
    readonly chat_instance: string;
    readonly data: string;
  };
}

/**
 * What a user's message looks like: its sender (`from`), chat, `date` (Unix seconds; now on the
 * stand-in's clock by default), forum topic (`thread`), `entities` (a text starting with `/` gets
 * its `bot_command` entity, as Telegram adds it) and a forced `messageId`.
 *
 * @example
 * ```ts
 * import type { TelegramMessageOptions } from '@parley/telegram/testing';
 *
 * const inTopic: TelegramMessageOptions = { thread: 42, date: 1767225605 };
 * ```
 */
export interface TelegramMessageOptions {
  readonly from?: TelegramStandInUser;
  readonly chat?: TelegramStandInChat;
  readonly date?: number;
  readonly thread?: number;
  readonly entities?: readonly object[];
  readonly messageId?: number;
}

/**
 * Who clicks (`from`) and on which message the bot sent (`message`; by default the last one the
 * bot sent with an inline keyboard).
 *
 * @example
 * ```ts
 * import type { TelegramClickOptions } from '@parley/telegram/testing';
 *
 * const asBob: TelegramClickOptions = { from: { id: 7003, is_bot: false, first_name: 'Bob' } };
 * ```
 */
export interface TelegramClickOptions {
  readonly from?: TelegramStandInUser;
  readonly message?: TelegramStandInMessage;
}

/**
 * Builders of updates in Telegram's documented shapes, with the stand-in's own increasing
 * `update_id`s and per-chat `message_id`s, without delivering them (deliver with `deliver`).
 *
 * @example
 * ```ts
 * import { createTelegramStandIn } from '@parley/telegram/testing';
 *
 * const telegram = await createTelegramStandIn();
 * const update = telegram.updates.message('hi');
 * console.log(update.message.text, update.message.chat.type); // hi private
 * await telegram.close();
 * ```
 */
export interface TelegramStandInUpdates {
  /** A user's text message. */
  message(text: string, options?: TelegramMessageOptions): TelegramStandInMessageUpdate;
  /** The edit of a message: a new update carrying the message with its new text and `edit_date`. */
  edit(
    original: TelegramStandInMessageUpdate,
    text: string,
    options?: { readonly date?: number },
  ): TelegramStandInUpdate;
  /**
   * A click on an inline button: `button` is a button's label or its `callback_data` on the
   * message; any other string is sent as the `callback_data` itself (a stale or forged button).
   */
  click(button: string, options?: TelegramClickOptions): TelegramStandInClickUpdate;
  /** A fresh `update_id`, for an update a test writes by hand. */
  nextUpdateId(): number;
}
