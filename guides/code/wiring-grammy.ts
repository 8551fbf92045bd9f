// The grammY section of "Wiring Parley into an existing bot"; compiled by the standalone guide test.
// #region grammy
import { createHygieneInterceptor, createMessageBus, dispatchBySession } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createTelegramAdapter } from '@parley/telegram';
import type { Bot } from 'grammy';
import { type Orders, purge } from './getting-started.js';

/** Adds a confirmed /purge to the grammY bot you already have; call it before bot.start(). */
export async function addParley(bot: Bot, orders: Orders): Promise<() => Promise<void>> {
  const telegram = createTelegramAdapter({ bot });
  bot.use(telegram); // before your own handlers
  const bus = createMessageBus();
  bus.intercept(createHygieneInterceptor()); // redeliveries, edits, other bots
  const gate = createConfirmGate({ bus }); // takes the requester's 确认 / 取消 and button clicks
  const handoff = telegram.handoff(); // everything but /purge goes on to your handlers
  bus.intercept({ name: handoff.name, intercept: (m) => m.text.trim() !== '/purge' && handoff.intercept(m) });
  await bus.attach(telegram);
  const dispatcher = dispatchBySession(bus, async (message) => {
    const text = await purge(gate, orders, message); // waits in this chat only; other chats go on
    const { channel, chatId, threadId } = message; // the answer goes where the command came from
    await bus.publishOutbound({ channel, chatId, threadId, text });
  });
  return async () => {
    await gate.close();
    await bus.close();
    await dispatcher.done;
  };
}
// #endregion grammy
