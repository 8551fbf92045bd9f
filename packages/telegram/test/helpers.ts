// One bot, bus and adapter on the Bot API stand-in, run by polling (bot.start) or by webhook
// (grammY's webhookCallback on a local HTTP server that the test POSTs updates to, as Telegram would).
import { createHygieneInterceptor, createMessageBus, type MessageBus } from '@parley/bus';
import type { ManualClock, Store } from '@parley/core';
import { sendRequest, serveLoopback } from '@parley/testing/loopback';
import { Bot, webhookCallback } from 'grammy';
import { createTelegramAdapter, type TelegramAdapter, type TelegramAdapterOptions } from '../src/index.js';
import type { BotApiStandIn } from './bot-api.js';
import { TOKEN } from './bot-api.js';

export type Mode = 'polling' | 'webhook';
export const MODES: readonly Mode[] = ['polling', 'webhook'];
export const SECRET = 'webhook-secret-1';

export interface Harness {
  readonly bot: Bot;
  readonly bus: MessageBus;
  readonly telegram: TelegramAdapter;
  /** Hands one update to the bot as Telegram would and resolves once the bot has handled it. */
  feed(update: object): Promise<void>;
  /** Posts a raw webhook request (webhook mode only); resolves to the HTTP status. */
  post(body: string, secret?: string): Promise<number>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  readonly mode: Mode;
  readonly clock: ManualClock;
  readonly api: BotApiStandIn;
  readonly store?: Store;
  readonly adapter?: Omit<TelegramAdapterOptions, 'bot'>;
  /** Runs after the adapter is installed and before the bot starts: the bot's own handlers. */
  readonly setup?: (bot: Bot, bus: MessageBus, telegram: TelegramAdapter) => void;
  /** Skips the hygiene interceptor. */
  readonly raw?: boolean;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { api, clock } = options;
  const bot = new Bot(TOKEN, { client: { apiRoot: api.apiRoot } });
  const telegram = createTelegramAdapter({ bot, ...options.adapter });
  bot.use(telegram);
  const bus = createMessageBus({ clock });
  if (options.raw !== true) bus.intercept(createHygieneInterceptor());
  options.setup?.(bot, bus, telegram);
  await bus.attach(telegram);

  if (options.mode === 'polling') {
    const startPolls = await api.held(0);
    const running = bot.start({ timeout: 30 });
    await api.held(startPolls + 1);
    return {
      bot,
      bus,
      telegram,
      async feed(update) {
        const polls = await api.held(0);
        api.push(update);
        await api.held(polls + 1); // grammY asks for more only after handling the batch
      },
      post: () => Promise.reject(new Error('post is for webhook mode')),
      async stop() {
        await bot.stop();
        await running;
        await bus.close();
      },
    };
  }

  const server = await serveLoopback(webhookCallback(bot, 'http', { secretToken: SECRET }));
  const post = async (body: string, secret = SECRET): Promise<number> => {
    const headers = { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret };
    return (await sendRequest(`${server.url}/`, { headers, body })).status;
  };
  return {
    bot,
    bus,
    telegram,
    async feed(update) {
      const status = await post(JSON.stringify(update));
      if (status !== 200) throw new Error(`webhook answered ${status}`);
    },
    post,
    async stop() {
      await server.close();
      await bus.close();
    },
  };
}
