// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/telegram, compiled and run; each console.log is an assertion here.
import { createMessageBus } from '@parley/bus';
import { createMemoryStore, isParleyError } from '@parley/core';
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
