// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/telegram, compiled and run; each console.log is an assertion here.
import { createMessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { Bot } from 'grammy';
import { describe, expect, it } from 'vitest';
import {
  createTelegramAdapter,
  DEFAULT_BUTTON_TTL_MS,
  MAX_CALLBACK_DATA_BYTES,
  TELEGRAM_ADAPTER_ERROR_CODES,
  type TelegramAdapter,
  TelegramAdapterError,
  type TelegramAdapterErrorCode,
  type TelegramAdapterEvents,
  type TelegramAdapterOptions,
  type TelegramSkipReason,
} from '../src/index.js';
import {
  createTelegramStandIn,
  type TelegramClickOptions,
  type TelegramDelivery,
  type TelegramMessageOptions,
  type TelegramStandIn,
  type TelegramStandInCall,
  type TelegramStandInChat,
  type TelegramStandInClickUpdate,
  type TelegramStandInFailure,
  type TelegramStandInMessage,
  type TelegramStandInMessageUpdate,
  type TelegramStandInOptions,
  type TelegramStandInUpdate,
  type TelegramStandInUser,
} from '../src/testing.js';

describe('errors.ts examples', () => {
  it('TELEGRAM_ADAPTER_ERROR_CODES', () => {
    expect(TELEGRAM_ADAPTER_ERROR_CODES.includes('rate_limited')).toBe(true);
  });

  it('TelegramAdapterErrorCode', () => {
    const code: TelegramAdapterErrorCode = 'callback_data_too_long';
    expect(TELEGRAM_ADAPTER_ERROR_CODES).toContain(code);
  });

  it('TelegramAdapterError', () => {
    const error = new TelegramAdapterError('rate_limited', 'Too Many Requests', {
      details: { retryAfterMs: 3000 },
    });
    expect([isParleyError(error, 'rate_limited'), error.details.retryAfterMs]).toEqual([true, 3000]);
  });
});

describe('callback-data.ts examples', () => {
  it('MAX_CALLBACK_DATA_BYTES', () => {
    expect(MAX_CALLBACK_DATA_BYTES).toBe(64);
  });
});

describe('types.ts examples', () => {
  it('DEFAULT_BUTTON_TTL_MS', () => {
    expect(DEFAULT_BUTTON_TTL_MS).toBe(86_400_000);
  });

  it('TelegramAdapterOptions', () => {
    const options: TelegramAdapterOptions = { bot: new Bot('123:ABC'), buttonStore: createMemoryStore() };
    expect(options.buttonStore).toBeDefined();
  });

  it('TelegramSkipReason', () => {
    const reason: TelegramSkipReason = 'unknown_button';
    expect(reason).toBe('unknown_button');
  });

  it('TelegramAdapterEvents', () => {
    const seen: string[] = [];
    const log = (event: TelegramAdapterEvents['error']) => seen.push(event.code);
    log({ code: 'answer_failed', error: new Error('x') });
    expect(seen).toEqual(['answer_failed']);
  });

  it('TelegramAdapter', () => {
    const telegram: TelegramAdapter = createTelegramAdapter({ bot: new Bot('123:ABC') });
    const bus = createMessageBus();
    const off = bus.intercept(telegram.handoff()); // last: what nothing consumed goes on to the bot's handlers
    expect(typeof off).toBe('function');
  });
});

describe('adapter.ts examples', () => {
  it('createTelegramAdapter', async () => {
    const bot = new Bot('123:ABC');
    const telegram = createTelegramAdapter({ bot });
    bot.use(telegram); // before the bot's own handlers
    const bus = createMessageBus();
    const detach = await bus.attach(telegram);
    expect(telegram.channel).toBe('telegram');
    detach();
  });
});

describe('standin-types.ts examples', () => {
  it('TelegramStandInUser', () => {
    const alice: TelegramStandInUser = {
      id: 7002,
      is_bot: false,
      first_name: 'Alice',
      username: 'alice_ops',
    };
    expect(alice.id).toBe(7002);
  });

  it('TelegramStandInChat', () => {
    const ops: TelegramStandInChat = { id: -1001234567890, type: 'supergroup', title: 'Ops' };
    expect(ops.type).toBe('supergroup');
  });

  it('TelegramStandInMessage', () => {
    const message: TelegramStandInMessage = {
      message_id: 101,
      chat: { id: 7002, type: 'private' },
      date: 1767225600,
      text: 'hi',
    };
    expect(message.text).toBe('hi');
  });

  it('TelegramStandInUpdate', () => {
    const post: TelegramStandInUpdate = {
      update_id: 900000001,
      channel_post: { message_id: 7, chat: { id: -100777, type: 'channel' }, date: 1767225600, text: 'x' },
    };
    expect(post.update_id).toBe(900000001);
  });

  it('TelegramStandInMessageUpdate', () => {
    const text = (update: TelegramStandInMessageUpdate): string | undefined => update.message.text;
    expect(
      text({
        update_id: 1,
        message: { message_id: 1, chat: { id: 1, type: 'private' }, date: 0, text: 'a' },
      }),
    ).toBe('a');
  });

  it('TelegramStandInClickUpdate', () => {
    const data = (update: TelegramStandInClickUpdate): string => update.callback_query.data;
    expect(typeof data).toBe('function');
  });

  it('TelegramMessageOptions', () => {
    const inTopic: TelegramMessageOptions = { thread: 42, date: 1767225605 };
    expect(inTopic.thread).toBe(42);
  });

  it('TelegramClickOptions', () => {
    const asBob: TelegramClickOptions = { from: { id: 7003, is_bot: false, first_name: 'Bob' } };
    expect(asBob.from?.id).toBe(7003);
  });

  it('TelegramStandInUpdates', async () => {
    const telegram = await createTelegramStandIn();
    const update = telegram.updates.message('hi');
    expect([update.message.text, update.message.chat.type]).toEqual(['hi', 'private']);
    await telegram.close();
  });

  it('TelegramDelivery', () => {
    const handled = (delivery: TelegramDelivery): boolean => delivery.ok;
    expect(handled({ ok: true, update: { update_id: 1 } })).toBe(true);
  });

  it('TelegramStandInCall', () => {
    const textOf = (call: TelegramStandInCall): unknown => call.params['text'];
    expect(textOf({ method: 'sendMessage', params: { text: 'hi' } })).toBe('hi');
  });

  it('TelegramStandInFailure', () => {
    const slowDown: TelegramStandInFailure = {
      error_code: 429,
      description: 'Too Many Requests: retry after 3',
      parameters: { retry_after: 3 },
    };
    expect(slowDown.parameters?.retry_after).toBe(3);
  });

  it('TelegramStandInOptions', () => {
    const options: TelegramStandInOptions = {
      clock: createManualClock({ now: 1_767_225_600_000 }),
      chat: { id: -1001234567890, type: 'supergroup', title: 'Ops' },
    };
    expect(options.chat?.type).toBe('supergroup');
  });

  it('TelegramStandIn', async () => {
    const telegram: TelegramStandIn = await createTelegramStandIn();
    expect([telegram.url.startsWith('http://127.0.0.1:'), telegram.sent.length]).toEqual([true, 0]);
    await telegram.close();
  });
});

describe('standin.ts examples', () => {
  it('createTelegramStandIn', async () => {
    const telegram = await createTelegramStandIn();
    const bot = new Bot(telegram.token, { client: { apiRoot: telegram.url } });
    bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    const running = bot.start();
    await telegram.message('hello');
    expect(telegram.sent.map((call) => call.params['text'])).toEqual(['echo: hello']);
    await bot.stop();
    await running;
    await telegram.close();
  });
});
