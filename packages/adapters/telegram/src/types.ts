import type { ChannelAdapter, InboundInterceptor, OutboundMessage, SendReceipt } from '@parley/bus';
import type { Emitter, Store } from '@parley/core';
import type { Api, Context, MiddlewareFn } from 'grammy';

/**
 * How long a button value kept in `buttonStore` stays clickable: one day.
 *
 * @example
 * ```ts
 * import { DEFAULT_BUTTON_TTL_MS } from '@parley/telegram';
 *
 * console.log(DEFAULT_BUTTON_TTL_MS); // 86400000
 * ```
 */
export const DEFAULT_BUTTON_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Options for {@link createTelegramAdapter}.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from '@parley/core';
 * import type { TelegramAdapterOptions } from '@parley/telegram';
 * import { Bot } from 'grammy';
 *
 * const options: TelegramAdapterOptions = { bot: new Bot('123:ABC'), buttonStore: createMemoryStore() };
 * ```
 */
export interface TelegramAdapterOptions {
  /** The grammY bot (anything with its `api`): `send` calls `bot.api.sendMessage`. */
  readonly bot: { readonly api: Api };
  /** The channel name, the first part of session keys; `telegram` by default. */
  readonly channel?: string;
  /**
   * Where button values too long for the 64-byte `callback_data` are kept (the button then carries
   * a short key), e.g. the confirm gate's signed tokens. Without it, such a card fails to send
   * (`callback_data_too_long`). Share it between replicas like the gate's store.
   */
  readonly buttonStore?: Store;
  /** How long a stored button value lives; {@link DEFAULT_BUTTON_TTL_MS} by default. */
  readonly buttonTtlMs?: number;
  /** Keys for stored button values; nanoid by default. */
  readonly generateId?: () => string;
}

/**
 * Why an update did not reach the bus: an update kind the adapter does not map, a message without
 * a sender (an anonymous admin, a channel post), a button of an inline-mode message (no chat), or
 * a click on a stored button whose value is gone (expired).
 *
 * @example
 * ```ts
 * import type { TelegramSkipReason } from '@parley/telegram';
 *
 * const reason: TelegramSkipReason = 'unknown_button';
 * ```
 */
export type TelegramSkipReason = 'unsupported' | 'no_sender' | 'inline_button' | 'unknown_button';

/**
 * The events of a {@link TelegramAdapter}. A failed `send` is not one of them: it rejects, and the
 * bus reports it (`send_failed` result, `dropped` event) with the {@link TelegramAdapterError}.
 *
 * @example
 * ```ts
 * import type { TelegramAdapterEvents } from '@parley/telegram';
 *
 * const log = (event: TelegramAdapterEvents['error']) => console.log(event.code);
 * ```
 */
export interface TelegramAdapterEvents {
  /** An update went on to the next middleware without reaching the bus. */
  skipped: { readonly updateId: number; readonly reason: TelegramSkipReason };
  /** A call that nobody awaits failed: `answerCallbackQuery`, or reading a stored button value. */
  error: {
    readonly code: 'answer_failed' | 'button_lookup_failed';
    readonly error: unknown;
    readonly updateId?: number;
  };
}

/**
 * A `ChannelAdapter` on a grammY bot that is also grammY middleware (`bot.use(adapter)`).
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createTelegramAdapter, type TelegramAdapter } from '@parley/telegram';
 * import { Bot } from 'grammy';
 *
 * const telegram: TelegramAdapter = createTelegramAdapter({ bot: new Bot('123:ABC') });
 * const bus = createMessageBus();
 * bus.intercept(telegram.handoff()); // last: what nothing consumed goes on to the bot's handlers
 * ```
 */
export interface TelegramAdapter extends ChannelAdapter {
  readonly channel: string;
  /**
   * Sends one message with `sendMessage` (several past 4 096 characters); resolves to the end of
   * Telegram's whole-second stamp of the last one as `sentAt`, rejects with a `TelegramAdapterError`.
   */
  send(message: OutboundMessage): Promise<SendReceipt>;
  /** The grammY middleware; `bot.use(adapter)` calls it. */
  middleware(): MiddlewareFn<Context>;
  /**
   * An interceptor to add last on the bus: it consumes every message of this channel that no
   * earlier interceptor (hygiene, the confirm gate) consumed, and the adapter passes those updates
   * on to the bot's next grammY middleware instead of queueing them for a bus consumer.
   */
  handoff(): InboundInterceptor;
  /** Subscribes to {@link TelegramAdapterEvents}. */
  on: Emitter<TelegramAdapterEvents>['on'];
}
