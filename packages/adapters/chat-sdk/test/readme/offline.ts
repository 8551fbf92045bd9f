// The "Test your bot offline" example of README.md, checked and run by test/readme.test.ts:
// everything from the first import down is the README's code block, character for character.
import { createDiscordAdapter } from '@chat-adapter/discord';
import { createMemoryState } from '@chat-adapter/state-memory';
import { createDiscordStandIn } from '@parley/chat-sdk/testing';
import { Chat, ConsoleLogger } from 'chat';

const discord = await createDiscordStandIn(); // Discord's REST API, signed interactions, the Gateway
const logger = new ConsoleLogger('silent');
const adapter = createDiscordAdapter({ ...discord.adapterConfig, logger });
const state = createMemoryState();
const bot = new Chat({ userName: 'shop', adapters: { discord: adapter }, state, logger });
bot.onNewMessage(/^ping$/, async (thread) => void (await thread.post('pong'))); // your bot
discord.deliverTo((request) => bot.webhooks.discord(request));
await discord.message({ id: '300000000000000001', username: 'alice' }, 'ping');
await discord.waitForSent();
console.log(discord.sent.map((message) => message.content)); // [ 'pong' ]
await bot.shutdown();
await discord.close();
