// The grammY section of "Wiring Parley into an existing bot": a bot started the way grammY's docs
// start one, with Parley's lines added. The guide tests run this file as a program against a
// stand-in of the Bot API (TELEGRAM_API_ROOT); without that variable it talks to Telegram.
// #region grammy
import { createHygieneInterceptor, createMessageBus, dispatchBySession } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createTelegramAdapter } from '@parley/telegram';
import { Bot } from 'grammy';
import { type Orders, purge } from './getting-started.js';

const orders: Orders = { deleteCancelled: async () => 3 }; // your data layer
const bot = new Bot(process.env.BOT_TOKEN ?? '', { client: { apiRoot: process.env.TELEGRAM_API_ROOT } });

// Parley: right after `new Bot(…)`, before your own handlers.
const telegram = createTelegramAdapter({ bot });
bot.use(telegram);
const bus = createMessageBus();
bus.intercept(createHygieneInterceptor());
const gate = createConfirmGate({ bus });
const handoff = telegram.handoff();
bus.intercept({ name: handoff.name, intercept: (m) => m.text.trim() !== '/purge' && handoff.intercept(m) });
await bus.attach(telegram);
dispatchBySession(bus, async (m) => {
  const text = await purge(gate, orders, m);
  await bus.publishOutbound({ channel: m.channel, chatId: m.chatId, threadId: m.threadId, text });
});

// Your handlers, unchanged: they get every update but /purge and the answers to its prompt.
bot.command('start', (ctx) => ctx.reply('Welcome! Up and running.'));
bot.on('message', (ctx) => ctx.reply('Got another message!'));

bot.start({ onStart: (me) => console.log(`@${me.username} is running`) });
// #endregion grammy
