// The "Test your bot offline" example of README.md, checked and run by test/readme.test.ts:
// everything from the first import down is the README's code block, character for character.
import { createMessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createTelegramAdapter } from '@parley/telegram';
import { createTelegramStandIn } from '@parley/telegram/testing';
import { Bot } from 'grammy';

const telegram = await createTelegramStandIn(); // the Bot API on 127.0.0.1
const bot = new Bot(telegram.token, { client: { apiRoot: telegram.url } });
const adapter = createTelegramAdapter({ bot });
bot.use(adapter);
const bus = createMessageBus();
const gate = createConfirmGate({ bus });
await bus.attach(adapter);
void bot.start();

const action = { name: 'orders.purge', args: { status: 'cancelled' } };
const ask = { sessionKey: `telegram:${telegram.chat.id}`, requester: String(telegram.user.id) };
const decision = gate.request({ ...ask, action, summary: 'Delete cancelled orders' });
await telegram.waitFor('sendMessage'); // the card is in the chat
await telegram.click('确认 Confirm'); // the user clicks its button; resolves once the bot handled it
console.log((await decision).outcome); // confirmed

await bot.stop();
await gate.close();
await bus.close();
await telegram.close();
