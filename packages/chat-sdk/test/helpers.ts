// The Discord bot of the tests: the real Chat SDK and its Discord adapter, pointed at the REST
// stand-in; interactions are signed with an Ed25519 key made here, gateway messages forwarded the
// way the adapter's own Gateway listener forwards them.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createDiscordAdapter, type DiscordAdapter } from '@chat-adapter/discord';
import { createMemoryState } from '@chat-adapter/state-memory';
import { createMessageBus, type InboundMessage, type MessageBus } from '@parley/bus';
import type { ManualClock } from '@parley/core';
import { createProgress } from '@parley/testing';
import { Chat, type StateAdapter } from 'chat';
import { type ChatSdkAdapter, createChatSdkAdapter } from '../src/index.js';
import { type DiscordApiStandIn, snowflakeAt, startDiscordApi } from './discord-api.js';

export const APP_ID = '900000000000000001';
export const BOT_TOKEN = 'bot-token-test';
export const GUILD = '100000000000000001';
export const CHANNEL = '200000000000000001';
export const ALICE = { id: '300000000000000001', username: 'alice' };
export const MALLORY = { id: '300000000000000002', username: 'mallory' };
/** The bus chat id of the test channel. */
export const CHAT_ID = `discord:${GUILD}:${CHANNEL}`;

export interface DiscordHarness {
  readonly bot: Chat;
  /** The Chat SDK's Discord adapter of the bot. */
  readonly discord: DiscordAdapter;
  readonly adapter: ChatSdkAdapter;
  readonly bus: MessageBus;
  readonly api: DiscordApiStandIn;
  /** What the bus received, in order. */
  readonly inbound: InboundMessage[];
  /** A person's message in a channel (or thread), forwarded as a Gateway MESSAGE_CREATE. */
  message(from: { id: string; username: string }, content: string, more?: MessageMore): Promise<Response>;
  /** A click on a posted button, as a signed HTTP interaction. */
  click(
    from: { id: string; username: string },
    customId: string,
    messageId: string,
    more?: { signWith?: string; id?: string },
  ): Promise<Response>;
  /** Resolves once the bus has received `count` messages; rejects naming them when none come. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface MessageMore {
  readonly id?: string;
  /** When it was written (epoch ms); the clock's now by default. */
  readonly at?: number;
  readonly channelId?: string;
  readonly mention?: boolean;
  readonly bot?: boolean;
}

/**
 * The adapter calls the global `fetch`, whose request keeps an abort listener on a signal that
 * never aborts until it is garbage-collected, which the leak check counts. Each call here reads the
 * whole answer, then aborts its own signal, so nothing stays attached.
 */
function settledFetch(real: typeof fetch): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    try {
      const response = await real(input, { ...init, signal: controller.signal });
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, headers: response.headers });
    } finally {
      controller.abort();
    }
  };
}

/**
 * Starts one process of the bot: a Chat SDK bot, the adapter and a bus. Given `api`, it talks to
 * that (shared, as a restarted process would) stand-in and leaves it open on close.
 */
export async function startDiscord(
  clock: ManualClock,
  shared?: DiscordApiStandIn,
  state: StateAdapter = createMemoryState(),
): Promise<DiscordHarness> {
  const api = shared ?? (await startDiscordApi(clock));
  const realFetch = globalThis.fetch;
  globalThis.fetch = settledFetch(realFetch);
  const keys = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519');
  const publicKey = Buffer.from(keys.publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString(
    'hex',
  );
  const discord = createDiscordAdapter({
    apiUrl: api.url,
    applicationId: APP_ID,
    botToken: BOT_TOKEN,
    publicKey,
    logger: silent,
  });
  const bot = new Chat({
    userName: 'parley',
    adapters: { discord },
    state,
    logger: 'silent',
  });
  await bot.initialize(); // what its first webhook would do; edits and clicks below come without one
  const adapter = createChatSdkAdapter({ bot });
  const bus = createMessageBus({ clock });
  await bus.attach(adapter);
  const inbound: InboundMessage[] = [];
  const progress = createProgress();
  bus.intercept({
    name: 'recorder', // sees every inbound message first, and passes it on
    intercept: (message) => {
      inbound.push(message);
      progress.poke();
      return false;
    },
  });
  let seq = 0;
  const request = (body: string, headers: Record<string, string>): Promise<Response> =>
    bot.webhooks.discord(
      new Request('http://bot.test/api/webhooks/discord', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }),
    );
  return {
    bot,
    discord,
    adapter,
    bus,
    api,
    inbound,
    message(from, content, more = {}) {
      const at = more.at ?? clock.now();
      const data = {
        id: more.id ?? snowflakeAt(at, 100 + seq++),
        channel_id: more.channelId ?? CHANNEL,
        guild_id: GUILD,
        channel_type: more.channelId === undefined ? 0 : 11,
        author: { id: from.id, username: from.username, global_name: null, bot: more.bot ?? false },
        content: more.mention === true ? `<@${APP_ID}> ${content}` : content,
        timestamp: new Date(at).toISOString(),
        mentions: more.mention === true ? [{ id: APP_ID, username: 'parley', bot: true }] : [],
        mention_roles: [],
        attachments: [],
      };
      const event = { type: 'GATEWAY_MESSAGE_CREATE', timestamp: clock.now(), data };
      return request(JSON.stringify(event), { 'x-discord-gateway-token': BOT_TOKEN });
    },
    click(from, customId, messageId, more = {}) {
      const body = JSON.stringify({
        id: more.id ?? snowflakeAt(clock.now(), 200 + seq++),
        application_id: APP_ID,
        type: 3,
        token: 'interaction-token',
        version: 1,
        guild_id: GUILD,
        channel_id: CHANNEL,
        channel: { id: CHANNEL, type: 0 },
        member: { user: { id: from.id, username: from.username, global_name: null } },
        message: { id: messageId, channel_id: CHANNEL },
        data: { custom_id: customId, component_type: 2 },
      });
      const timestamp = String(Math.floor(clock.now() / 1000));
      const key = more.signWith === 'other' ? other.privateKey : keys.privateKey;
      const signature = sign(null, Buffer.from(timestamp + body), key).toString('hex');
      return request(body, { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp });
    },
    received: (count) =>
      progress.waitFor(() => inbound.length >= count, `${count} inbound message(s) on the bus`),
    async close() {
      await bus.close();
      await bot.shutdown();
      if (shared === undefined) await api.close();
      globalThis.fetch = realFetch;
    },
  };
}

const silent = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silent,
};
