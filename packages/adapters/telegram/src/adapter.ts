import type { DeliverInbound, InboundInterceptor, PublishResult, SendReceipt } from '@parley/bus';
import {
  assertTtlMs,
  createEmitter,
  generateId as defaultGenerateId,
  type JsonValue,
  type Unsubscribe,
} from '@parley/core';
import type { Context, NextFunction } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import {
  byteLength,
  decodeData,
  encodeStored,
  encodeValue,
  MAX_CALLBACK_DATA_BYTES,
} from './callback-data.js';
import { TelegramAdapterError } from './errors.js';
import { mapUpdate, orderOf } from './inbound.js';
import { replyTarget, splitText, textOf } from './outbound.js';
import { toAdapterError } from './platform-errors.js';
import {
  DEFAULT_BUTTON_TTL_MS,
  type TelegramAdapter,
  type TelegramAdapterEvents,
  type TelegramAdapterOptions,
} from './types.js';

const BUTTON_PREFIX = 'parley:telegram:button:';

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
  let deliver: DeliverInbound | undefined;

  async function callbackDataOf(label: string, value: JsonValue): Promise<string> {
    const data = encodeValue(value);
    const bytes = byteLength(data);
    if (bytes <= MAX_CALLBACK_DATA_BYTES) return data;
    if (buttonStore === undefined) {
      throw new TelegramAdapterError(
        'callback_data_too_long',
        `The button "${label}" needs ${bytes} bytes of callback_data; Telegram allows ${MAX_CALLBACK_DATA_BYTES}. Pass a buttonStore to keep long values on your side.`,
        { details: { label, bytes, limit: MAX_CALLBACK_DATA_BYTES } },
      );
    }
    const key = nextId();
    await buttonStore.set(`${BUTTON_PREFIX}${key}`, value, { ttlMs: buttonTtlMs });
    const stored = encodeStored(key);
    if (byteLength(stored) > MAX_CALLBACK_DATA_BYTES) {
      throw new TelegramAdapterError(
        'invalid_argument',
        `generateId returned a key too long for callback_data`,
        {
          details: { key },
        },
      );
    }
    return stored;
  }

  /** The value of a clicked button, or `undefined` when its stored value is gone. */
  async function actionOf(data: string | undefined): Promise<JsonValue | undefined | 'foreign'> {
    const decoded = decodeData(data);
    if (decoded.kind === 'foreign') return 'foreign';
    if (decoded.kind === 'value') return decoded.value;
    try {
      return await buttonStore?.get(`${BUTTON_PREFIX}${decoded.key}`);
    } catch (error) {
      events.emit('error', { code: 'button_lookup_failed', error });
      return undefined;
    }
  }

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
    const action = await actionOf(mapped.data);
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
        row.push({ text: button.label, callback_data: await callbackDataOf(button.label, button.value) });
      }
      const pieces = splitText(textOf(message));
      const chatId = /^-?\d+$/.test(message.chatId) ? Number(message.chatId) : message.chatId;
      const replyTo = replyTarget(message);
      let date = 0;
      let messageId = '';
      let order: SendReceipt['order'];
      for (const [i, piece] of pieces.entries()) {
        const last = i === pieces.length - 1;
        try {
          const sent = await bot.api.sendMessage(chatId, piece, {
            ...(message.threadId === undefined ? {} : { message_thread_id: Number(message.threadId) }),
            ...(replyTo === undefined || i > 0 ? {} : { reply_parameters: { message_id: replyTo } }),
            ...(row.length === 0 || !last ? {} : { reply_markup: { inline_keyboard: [row] } }),
          });
          date = sent.date;
          messageId = String(sent.message_id);
          order = orderOf(channel, sent.chat?.id, sent.message_id); // the last piece: the whole prompt is out
        } catch (error) {
          throw toAdapterError(error);
        }
      }
      // `date` has whole seconds: the message reached Telegram at the latest by the end of that
      // second, so a reply stamped in the same second never counts as written after it.
      return { sentAt: date * 1000 + 999, order, ...(messageId === '' ? {} : { messageId }) };
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
