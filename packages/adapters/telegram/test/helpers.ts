// The people and chats of the tests, and one bot, bus and adapter on the exported Bot API stand-in,
// run by polling (bot.start) or by webhook (grammY's webhookCallback on a local HTTP server, set
// with setWebhook, that the stand-in POSTs updates to as Telegram would).
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { Clock, Store } from '@parley/core';
import { serveLoopback } from '@parley/testing/loopback';
import { Bot, webhookCallback } from 'grammy';
import { createTelegramAdapter, type TelegramAdapter, type TelegramAdapterOptions } from '../src/index.js';
import {
  createTelegramStandIn,
  type TelegramStandIn,
  type TelegramStandInChat,
  type TelegramStandInUpdate,
} from '../src/testing.js';

/** 2026-01-01T00:00:00Z, in Unix seconds. */
export const T0 = 1_767_225_600;
export const GROUP_ID = -1_001_234_567_890;
export const ALICE = {
  id: 7_002,
  is_bot: false,
  first_name: 'Alice',
  username: 'alice_ops',
  language_code: 'zh-hans',
};
export const MALLORY = { id: 7_666, is_bot: false, first_name: 'Mallory' };
export const OTHER_BOT = { id: 8_000_000_777, is_bot: true, first_name: 'Helper', username: 'helper_bot' };
export const GROUP: TelegramStandInChat = { id: GROUP_ID, title: 'Ops', type: 'supergroup' };

/** The stand-in the tests use: Alice writes in the Ops group unless a test says otherwise. */
export function startStandIn(clock: Clock): Promise<TelegramStandIn> {
  return createTelegramStandIn({ clock, user: ALICE, chat: GROUP });
}

export type Mode = 'polling' | 'webhook';
export const MODES: readonly Mode[] = ['polling', 'webhook'];
export const SECRET = 'webhook-secret-1';

export interface Harness {
  readonly bot: Bot;
  readonly bus: MessageBus;
  readonly telegram: TelegramAdapter;
  /** Delivers one update as Telegram would and resolves once the bot has handled it. */
  feed(update: TelegramStandInUpdate): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  readonly mode: Mode;
  readonly clock: Clock;
  readonly api: TelegramStandIn;
  readonly store?: Store;
  readonly adapter?: Omit<TelegramAdapterOptions, 'bot'>;
  /** Runs after the adapter is installed and before the bot starts: the bot's own handlers. */
  readonly setup?: (bot: Bot, bus: MessageBus, telegram: TelegramAdapter) => void;
  /** Skips the hygiene interceptor. */
  readonly raw?: boolean;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { api, clock } = options;
  const bot = new Bot(api.token, { client: { apiRoot: api.url } });
  const telegram = createTelegramAdapter({ bot, ...options.adapter });
  bot.use(telegram);
  const bus = createMessageBus({ clock });
  if (options.raw !== true) bus.intercept(createHygieneInterceptor());
  options.setup?.(bot, bus, telegram);
  await bus.attach(telegram);
  async function feed(update: TelegramStandInUpdate): Promise<void> {
    const delivery = await api.deliver(update);
    if (!delivery.ok) throw new Error(`update ${update.update_id} not delivered: ${delivery.message}`);
  }

  if (options.mode === 'polling') {
    const polls = api.calls('getUpdates').length;
    const running = bot.start({ timeout: 30 });
    await api.waitFor('getUpdates', polls + 1);
    return {
      bot,
      bus,
      telegram,
      feed,
      async stop() {
        await bot.stop();
        await running;
        await bus.close();
      },
    };
  }

  let stopped = false;
  const server = await serveLoopback(webhookCallback(bot, 'http', { secretToken: SECRET }));
  await bot.api.setWebhook(`${server.url}/`, { secret_token: SECRET });
  return {
    bot,
    bus,
    telegram,
    feed,
    async stop() {
      if (stopped) return; // a test's afterEach may stop a harness the test stopped already
      stopped = true;
      await bot.api.deleteWebhook();
      await server.close();
      await bus.close();
    },
  };
}
