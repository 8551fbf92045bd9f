// The Discord bot of the tests: the real Chat SDK and its Discord adapter, pointed at the exported
// Discord stand-in (REST API, Ed25519-signed interactions, Gateway-forwarded messages).
import { createDiscordAdapter, type DiscordAdapter } from '@chat-adapter/discord';
import { createMemoryState } from '@chat-adapter/state-memory';
import type { ManualClock } from '@parley/core';
import { Chat, type StateAdapter } from 'chat';
import { createDiscordStandIn, type DiscordStandIn, settledFetch } from '../src/testing.js';
import { attachRecorded, type Recorded, silent } from './recorder.js';

export const APP_ID = '900000000000000001';
export const GUILD = '100000000000000001';
export const CHANNEL = '200000000000000001';
export const ALICE = { id: '300000000000000001', username: 'alice' };
export const MALLORY = { id: '300000000000000002', username: 'mallory' };
/** The bus chat id of the test channel. */
export const CHAT_ID = `discord:${GUILD}:${CHANNEL}`;

export interface DiscordHarness extends Recorded {
  readonly bot: Chat;
  /** The Chat SDK's Discord adapter of the bot. */
  readonly discord: DiscordAdapter;
  readonly standIn: DiscordStandIn;
  close(): Promise<void>;
}

/**
 * Starts one process of the bot: a Chat SDK bot, the adapter and a bus. Given `shared`, it talks
 * to that stand-in (as a restarted process would) and leaves it open on close.
 */
export async function startDiscord(
  clock: ManualClock,
  shared?: DiscordStandIn,
  state: StateAdapter = createMemoryState(),
): Promise<DiscordHarness> {
  const standIn = shared ?? (await createDiscordStandIn({ clock, applicationId: APP_ID }));
  const realFetch = globalThis.fetch;
  globalThis.fetch = settledFetch(realFetch);
  const discord = createDiscordAdapter({ ...standIn.adapterConfig, logger: silent });
  const bot = new Chat({ userName: 'parley', adapters: { discord }, state, logger: 'silent' });
  standIn.deliverTo((request) => bot.webhooks.discord(request));
  await bot.initialize(); // what its first webhook would do; edits and clicks below come without one
  const recorded = await attachRecorded(bot, clock);
  return {
    bot,
    discord,
    ...recorded,
    standIn,
    async close() {
      await recorded.bus.close();
      await bot.shutdown();
      if (shared === undefined) await standIn.close();
      globalThis.fetch = realFetch;
    },
  };
}
