import type { Clock } from '@parley/core';

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

/**
 * How an update reached the bot: `ok` once the bot confirmed it (polling: a later `getUpdates`
 * offset passed it, which grammY asks for only after handling it; webhook: the bot answered 2xx).
 * Refused: `webhook_refused` (another status, in `status`), `webhook_unreachable` (no answer), or
 * `closed` (the stand-in closed before the bot confirmed it).
 *
 * @example
 * ```ts
 * import type { TelegramDelivery } from '@parley/telegram/testing';
 *
 * const handled = (delivery: TelegramDelivery): boolean => delivery.ok;
 * ```
 */
export type TelegramDelivery<TUpdate extends TelegramStandInUpdate = TelegramStandInUpdate> =
  | { readonly ok: true; readonly update: TUpdate }
  | {
      readonly ok: false;
      readonly code: 'webhook_refused' | 'webhook_unreachable' | 'closed';
      readonly message: string;
      readonly update: TUpdate;
      readonly status?: number;
    };

/**
 * One Bot API call the bot made: the method and its parameters.
 *
 * @example
 * ```ts
 * import type { TelegramStandInCall } from '@parley/telegram/testing';
 *
 * const textOf = (call: TelegramStandInCall): unknown => call.params['text'];
 * ```
 */
export interface TelegramStandInCall {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/**
 * A Bot API refusal to script with `failNext`, in Telegram's shape.
 *
 * @example
 * ```ts
 * import type { TelegramStandInFailure } from '@parley/telegram/testing';
 *
 * const slowDown: TelegramStandInFailure = {
 *   error_code: 429,
 *   description: 'Too Many Requests: retry after 3',
 *   parameters: { retry_after: 3 },
 * };
 * ```
 */
export interface TelegramStandInFailure {
  readonly error_code: number;
  readonly description: string;
  readonly parameters?: { readonly retry_after?: number; readonly migrate_to_chat_id?: number };
}

/**
 * Options of {@link createTelegramStandIn}: the `clock` (message dates, long-poll timeouts; the
 * system clock by default), the bot `getMe` answers (`bot`), its `token`, and the default sender
 * (`user`) and `chat` of injected updates (a private chat with the user by default).
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { TelegramStandInOptions } from '@parley/telegram/testing';
 *
 * const options: TelegramStandInOptions = {
 *   clock: createManualClock({ now: 1_767_225_600_000 }),
 *   chat: { id: -1001234567890, type: 'supergroup', title: 'Ops' },
 * };
 * ```
 */
export interface TelegramStandInOptions {
  readonly clock?: Clock;
  readonly bot?: TelegramStandInUser;
  readonly token?: string;
  readonly user?: TelegramStandInUser;
  readonly chat?: TelegramStandInChat;
}

/**
 * A stand-in of the Telegram Bot API on 127.0.0.1 (see {@link createTelegramStandIn}).
 *
 * @example
 * ```ts
 * import { createTelegramStandIn, type TelegramStandIn } from '@parley/telegram/testing';
 *
 * const telegram: TelegramStandIn = await createTelegramStandIn();
 * console.log(telegram.url.startsWith('http://127.0.0.1:'), telegram.sent.length); // true 0
 * await telegram.close();
 * ```
 */
export interface TelegramStandIn {
  /** The value for grammY's `client.apiRoot`. */
  readonly url: string;
  /** The bot token the stand-in accepts (any other gets 401). */
  readonly token: string;
  /** The bot `getMe` answers with. */
  readonly bot: TelegramStandInUser;
  /** Who writes and clicks unless an update says otherwise (Ada, id 7001, by default). */
  readonly user: TelegramStandInUser;
  /** Where users write unless an update says otherwise (the user's private chat by default). */
  readonly chat: TelegramStandInChat;
  /** What the bot sent: its calls of `sendMessage`, `editMessageText`, `answerCallbackQuery`, …, in order. */
  readonly sent: readonly TelegramStandInCall[];
  /** Builders of updates, not delivered. */
  readonly updates: TelegramStandInUpdates;
  /** Every call of `method` the bot made (refused ones included), in order. */
  calls(method: string): TelegramStandInCall[];
  /**
   * Resolves with the `count`-th call of `method` (counting those made) once the stand-in has taken
   * it in (a sent message is in its chat, though a hook of `onSend` may hold the bot's answer back);
   * rejects with a `closed` TelegramAdapterError when the stand-in closes first.
   */
  waitFor(method: string, count?: number): Promise<TelegramStandInCall>;
  /** A user writes `text`: delivers a message update. */
  message(
    text: string,
    options?: TelegramMessageOptions,
  ): Promise<TelegramDelivery<TelegramStandInMessageUpdate>>;
  /** A user edits a message: delivers an `edited_message` update. */
  edit(
    original: TelegramStandInMessageUpdate,
    text: string,
    options?: { readonly date?: number },
  ): Promise<TelegramDelivery>;
  /** A user clicks an inline button (by label or `callback_data`): delivers a `callback_query`. */
  click(
    button: string,
    options?: TelegramClickOptions,
  ): Promise<TelegramDelivery<TelegramStandInClickUpdate>>;
  /** Delivers any update (again, for a redelivery): by webhook when one is set, else to `getUpdates`. */
  deliver<TUpdate extends TelegramStandInUpdate>(update: TUpdate): Promise<TelegramDelivery<TUpdate>>;
  /** The next call of `method` is refused with `failure`. */
  failNext(method: string, failure: TelegramStandInFailure): void;
  /** The next call of `method` gets its connection destroyed (the client sees a network error). */
  dropNext(method: string): void;
  /**
   * Runs after a `sendMessage` put the message in its chat and before the bot gets the answer (to
   * move the clock while the answer is in flight); a returned promise holds the answer back until
   * it settles.
   */
  onSend(hook: (() => void | Promise<void>) | undefined): void;
  /** Reshapes the `Message` the next `sendMessage` answers with (e.g. to drop a field). */
  reshapeNextSent(reshape: (message: Record<string, unknown>) => Record<string, unknown>): void;
  /** Answers held long polls, ends pending deliveries and waits (`closed`), and stops listening. */
  close(): Promise<void>;
}
