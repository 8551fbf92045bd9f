import type { Clock } from '@parley/core';
import type {
  TelegramClickOptions,
  TelegramMessageOptions,
  TelegramStandInChat,
  TelegramStandInClickUpdate,
  TelegramStandInMessageUpdate,
  TelegramStandInUpdate,
  TelegramStandInUpdates,
  TelegramStandInUser,
} from './standin-update-types.js';

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
