import type { DeliverInbound, InboundInterceptor, PublishResult, SendReceipt } from '@parley/bus';
import { assertTtlMs, createEmitter, generateId as defaultGenerateId, type Unsubscribe } from '@parley/core';
import type { Context, NextFunction } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import { mapUpdate } from './inbound.js';
import { actionOf, type ButtonValues, callbackDataOf } from './internal/buttons.js';
import { sendPieces } from './internal/send.js';
import { toAdapterError } from './platform-errors.js';
import {
  DEFAULT_BUTTON_TTL_MS,
  type TelegramAdapter,
  type TelegramAdapterEvents,
  type TelegramAdapterOptions,
} from './types.js';

/**
 * Creates a `ChannelAdapter` for `@parley/bus` on a grammY bot: its middleware (`bot.use(adapter)`)
 * hands every message, edit and Parley button click to the bus, and its `send` renders what the bus
 * publishes with `sendMessage` (cards as an inline keyboard).
 *
 * Use it with a polling bot (`bot.start()`) and a webhook bot (`webhookCallback(bot, …)`) alike:
 * the adapter never starts, stops or polls the bot; the host does. Install it before the bot's own
 * handlers. Clicks on the bot's own inline keyboards and updates it does not map go on to the next
 * middleware; so do messages that the {@link TelegramAdapter.handoff} interceptor lets through.
 *
 * @throws CoreError `invalid_timeout` for a bad `buttonTtlMs`.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createTelegramAdapter } from '@parley/telegram';
 * import { Bot } from 'grammy';
 *
 * const bot = new Bot('123:ABC');
 * const telegram = createTelegramAdapter({ bot });
 * bot.use(telegram); // before the bot's own handlers
 * const bus = createMessageBus();
 * const detach = await bus.attach(telegram);
 * console.log(telegram.channel); // telegram
 * detach();
 * ```
 */
export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const { bot, buttonStore } = options;
  const channel = options.channel ?? 'telegram';
  const buttonTtlMs = assertTtlMs(options.buttonTtlMs ?? DEFAULT_BUTTON_TTL_MS);
  const nextId = options.generateId ?? defaultGenerateId;
  const events = createEmitter<TelegramAdapterEvents>();
  const handoffName = `${channel}:handoff`;
  const buttons: ButtonValues = {
    buttonStore,
    buttonTtlMs,
    nextId,
    onLookupError: (error) => events.emit('error', { code: 'button_lookup_failed', error }),
  };
  let deliver: DeliverInbound | undefined;

  async function answer(ctx: Context, queryId: string): Promise<void> {
    try {
      await ctx.api.answerCallbackQuery(queryId); // stops the button's spinner
    } catch (error) {
      events.emit('error', {
        code: 'answer_failed',
        error: toAdapterError(error),
        updateId: ctx.update.update_id,
      });
    }
  }

  function handedOff(result: PublishResult): boolean {
    return result.status === 'intercepted' && result.by === handoffName;
  }

  async function middleware(ctx: Context, next: NextFunction): Promise<void> {
    const current = deliver;
    if (current === undefined) return next();
    const mapped = mapUpdate(ctx.update, ctx.me, channel);
    const updateId = ctx.update.update_id;
    if (mapped.kind === 'skip') {
      events.emit('skipped', { updateId, reason: mapped.reason });
      return next();
    }
    if (mapped.kind === 'inbound') {
      if (handedOff(await current(mapped.input))) return next();
      return;
    }
    const action = await actionOf(buttons, mapped.data);
    if (action === 'foreign') return next(); // a button of the bot's own keyboards
    if (action === undefined) {
      events.emit('skipped', { updateId, reason: 'unknown_button' });
      return answer(ctx, mapped.queryId);
    }
    const result = await current({ ...mapped.input, action });
    await answer(ctx, mapped.queryId);
    if (handedOff(result)) return next();
  }

  return {
    channel,
    async send(message): Promise<SendReceipt> {
      const row: InlineKeyboardButton.CallbackButton[] = [];
      for (const button of message.card?.buttons ?? []) {
        row.push({
          text: button.label,
          callback_data: await callbackDataOf(buttons, button.label, button.value),
        });
      }
      return sendPieces(bot.api, channel, message, row);
    },
    connect(d): Unsubscribe {
      deliver = d;
      return () => {
        if (deliver === d) deliver = undefined;
      };
    },
    middleware: () => middleware,
    handoff(): InboundInterceptor {
      return { name: handoffName, intercept: (message) => message.channel === channel };
    },
    on: (event, listener) => events.on(event, listener),
  };
}
