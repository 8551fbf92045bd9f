// `--platform discord`: the host's chat side on Discord, through @parley/chat-sdk over the real Chat
// SDK and its Discord adapter, against the Discord stand-in of @parley/chat-sdk/testing (no server,
// no account). Escalations and the approval request go to #approvals with an @ of the chairman,
// error notices to #errors; the approval is a @parley/confirm gate, so the chairman's click on
// 确认 / 取消 (or a typed 确认 / 取消) decides it, and nobody else's.
import { createDiscordAdapter } from '@chat-adapter/discord';
import { createMemoryState } from '@chat-adapter/state-memory';
import { createMessageBus, sessionKeyOf } from '@parley/bus';
import { createChatSdkAdapter } from '@parley/chat-sdk';
import { createDiscordStandIn, type DiscordPostedMessage } from '@parley/chat-sdk/testing';
import { createConfirmGate } from '@parley/confirm';
import type { ManualClock } from '@parley/core';
import { Chat, ConsoleLogger } from 'chat';
import type { ChairmanDecision } from './narrate.js';

/** The chairman's Discord account (`@董事長`). */
export const CHAIRMAN = { id: '300000000000000777', username: '董事長' } as const;
/** The server and its two channels. */
export const GUILD = '100000000000000001';
export const DISCORD_CHANNELS = { '#approvals': '200000000000000011', '#errors': '200000000000000012' };

export type RoomChannel = keyof typeof DISCORD_CHANNELS;

/** How the scripted chairman answers in Discord: a click on the card, or typing 确认 / 取消. */
export type ChairmanAnswer = 'click' | 'text';

/** The host's chat side: where notices go and how the chairman is asked. */
export interface ChatRoom {
  /** Posts a notice to a channel (`@董事長` at its start becomes a Discord mention of him). */
  notify(channel: RoomChannel, message: string): Promise<void>;
  /** Asks the chairman in #approvals; resolves with his decision once he has made it. */
  approve(
    message: string,
    answer: { readonly approve: boolean; readonly by: ChairmanAnswer },
  ): {
    /** Resolves once the question is in #approvals. */
    readonly posted: Promise<void>;
    /** The chairman answers now: clicks or types, and resolves with the decision. */
    answer(): Promise<ChairmanDecision>;
  };
  /** Every message the bot posted to Discord, in order, with the channel name. */
  readonly posted: readonly { readonly channel: string; readonly message: DiscordPostedMessage }[];
  close(): Promise<void>;
}

const chatIdOf = (channel: RoomChannel): string => `discord:${GUILD}:${DISCORD_CHANNELS[channel]}`;
const mention = (message: string): string => message.replace(/^@董事長/u, `<@${CHAIRMAN.id}>`);

/** Starts the Discord side: the stand-in, a Chat SDK bot on it, a bus and the approval gate. */
export async function startDiscordRoom(clock: ManualClock): Promise<ChatRoom> {
  const discord = await createDiscordStandIn({
    clock,
    guildId: GUILD,
    channelId: DISCORD_CHANNELS['#approvals'],
  });
  const logger = new ConsoleLogger('silent');
  const adapter = createDiscordAdapter({ ...discord.adapterConfig, logger });
  const bot = new Chat({
    userName: 'ceo_coo',
    adapters: { discord: adapter },
    state: createMemoryState(),
    logger,
  });
  discord.deliverTo((request) => bot.webhooks.discord(request));
  await bot.initialize();
  const bus = createMessageBus({ clock });
  await bus.attach(createChatSdkAdapter({ bot }));
  const gate = createConfirmGate({ bus, clock, timeoutMs: 60 * 60_000 });
  await gate.ready;
  const names = Object.fromEntries(Object.entries(DISCORD_CHANNELS).map(([name, id]) => [id, name]));
  let approvals = 0;

  return {
    get posted() {
      return discord.sent.map((message) => ({
        channel: names[message.channel_id] ?? message.channel_id,
        message,
      }));
    },
    async notify(channel, message) {
      const result = await bus.publishOutbound({
        channel: 'chat-sdk',
        chatId: chatIdOf(channel),
        text: mention(message),
      });
      if (result.status !== 'sent')
        throw new Error(`Discord refused the notice in ${channel}: ${result.status}`);
    },
    approve(message, script) {
      const prompted = new Promise<void>((resolve) => {
        const off = gate.on('prompted', () => {
          off();
          resolve();
        });
      });
      const decision = gate.request({
        sessionKey: sessionKeyOf({ channel: 'chat-sdk', chatId: chatIdOf('#approvals') }),
        requester: CHAIRMAN.id,
        action: { name: 'approve_strategy', args: { approval: ++approvals } },
        summary: mention(message),
      });
      return {
        posted: prompted,
        async answer() {
          const card = discord.sent.filter((m) => (m.components?.length ?? 0) > 0).at(-1);
          if (card === undefined) throw new Error('no approval card in #approvals');
          if (script.by === 'click') await discord.click(CHAIRMAN, card, script.approve ? 0 : 1);
          else await discord.message(CHAIRMAN, script.approve ? '确认' : '取消');
          const decided = await decision;
          const approve = decided.outcome === 'confirmed';
          const how = script.by === 'click' ? 'clicked' : 'typed';
          return { approve, reason: `${how} ${approve ? '确认' : '取消'} in Discord #approvals` };
        },
      };
    },
    async close() {
      await gate.close();
      await bus.close();
      await bot.shutdown();
      await discord.close();
    },
  };
}
