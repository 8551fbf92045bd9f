import { generateKeyPairSync, sign } from 'node:crypto';
import { type Clock, systemClock } from '@parley/core';
import { createProgress } from '@parley/testing';
import { type LoopbackAnswer, startLoopbackServer } from '@parley/testing/loopback';
import { ChatSdkAdapterError } from '../errors.js';
import type { DiscordMessageMore, DiscordPostedMessage, DiscordUser } from './discord-types.js';
import { type BotAnswer, type BotEndpoint, deliverTo } from './endpoint.js';
import { snowflakeAt } from './snowflake.js';

/**
 * Options of {@link createDiscordStandIn}.
 *
 * @example
 * ```ts
 * import type { DiscordStandInOptions } from '@parley/chat-sdk/testing';
 *
 * const options: DiscordStandInOptions = { channelId: '200000000000000009' };
 * ```
 */
export interface DiscordStandInOptions {
  /** Where interactions and forwarded messages go: the bot's webhook handler or URL. */
  readonly bot?: BotEndpoint;
  /** The clock of snowflakes and timestamps; the system clock by default. */
  readonly clock?: Clock;
  readonly applicationId?: string;
  readonly botToken?: string;
  readonly guildId?: string;
  /** The channel messages come from by default. */
  readonly channelId?: string;
}

/**
 * A running stand-in of Discord (see {@link createDiscordStandIn}).
 *
 * @example
 * ```ts
 * import type { DiscordStandIn } from '@parley/chat-sdk/testing';
 *
 * const cards = (discord: DiscordStandIn) => discord.sent.filter((m) => (m.components?.length ?? 0) > 0);
 * ```
 */
export interface DiscordStandIn {
  /** The REST API base (`…/api/v10`): the Chat SDK Discord adapter's `apiUrl`. */
  readonly url: string;
  readonly applicationId: string;
  readonly botToken: string;
  /** The hex Ed25519 public key interactions are signed with: the adapter's `publicKey`. */
  readonly publicKey: string;
  readonly guildId: string;
  readonly channelId: string;
  /** What `createDiscordAdapter` of `@chat-adapter/discord` needs to talk to the stand-in. */
  readonly adapterConfig: {
    readonly apiUrl: string;
    readonly applicationId: string;
    readonly botToken: string;
    readonly publicKey: string;
  };
  /** The bus chat id of the default channel in the Chat SDK (`discord:<guild>:<channel>`). */
  readonly chatId: string;
  /** Every message the bot posted, in order. */
  readonly sent: readonly DiscordPostedMessage[];
  /** Threads the stand-in knows, by id, with their parent channel. */
  readonly threads: Map<string, string>;
  deliverTo(bot: BotEndpoint): void;
  /** A person's message, forwarded the way the Discord adapter's Gateway listener forwards it. */
  message(from: DiscordUser, content: string, more?: DiscordMessageMore): Promise<BotAnswer>;
  /**
   * A click on button `button` (counted across its rows) of a posted message, as a signed HTTP
   * interaction (`forged`: signed by another key); rejects `invalid_argument` for a button it lacks.
   */
  click(
    from: DiscordUser,
    message: DiscordPostedMessage,
    button: number,
    more?: { readonly id?: string; readonly forged?: boolean },
  ): Promise<BotAnswer>;
  /**
   * Resolves once the bot has sent `count` messages in all (1 by default); rejects, naming what it
   * waited for, when none come within a minute of real time.
   */
  waitForSent(count?: number): Promise<void>;
  /** Answers the next message post with this status and body (429 is a rate limit). */
  failNext(status: number, body: unknown): void;
  close(): Promise<void>;
}

const POST_MESSAGE = /^\/api\/v10\/channels\/(\d+)\/messages$/;

/**
 * Starts a stand-in of Discord on loopback for a bot on the Chat SDK's Discord adapter: its REST
 * API (messages with snowflake ids from the clock, threads, channel lookups, the bot token
 * checked), signed HTTP interactions for clicks (an Ed25519 key it makes), and messages forwarded
 * the way the adapter's Gateway listener forwards them. A rate limit or refusal on demand.
 *
 * @example
 * ```ts
 * import { createDiscordStandIn } from '@parley/chat-sdk/testing';
 *
 * const discord = await createDiscordStandIn({ bot: async () => new Response('{}') });
 * const answer = await discord.message({ id: '300000000000000001', username: 'alice' }, 'hello');
 * console.log(answer.status, discord.url.endsWith('/api/v10')); // 200 true
 * await discord.close();
 * ```
 */
export async function createDiscordStandIn(options: DiscordStandInOptions = {}): Promise<DiscordStandIn> {
  const clock = options.clock ?? systemClock;
  const applicationId = options.applicationId ?? '900000000000000001';
  const botToken = options.botToken ?? 'stand-in-bot-token';
  const guildId = options.guildId ?? '100000000000000001';
  const channelId = options.channelId ?? '200000000000000001';
  const keys = generateKeyPairSync('ed25519');
  const forger = generateKeyPairSync('ed25519');
  const publicKey = Buffer.from(String(keys.publicKey.export({ format: 'jwk' }).x), 'base64url').toString(
    'hex',
  );
  const sent: DiscordPostedMessage[] = [];
  const threads = new Map<string, string>();
  let bot = options.bot;
  const progress = createProgress();
  let lastMs = -1;
  let seq = 0;
  const nextId = (): string => {
    const now = clock.now();
    seq = now === lastMs ? seq + 1 : 10; // the increment field need not start at 0
    lastMs = now;
    return snowflakeAt(now, seq);
  };
  let delivered = 0;
  const server = await startLoopbackServer({
    guard: (request) =>
      request.headers.authorization === `Bot ${botToken}`
        ? undefined
        : { status: 401, json: { message: '401: Unauthorized', code: 0 } },
    notFound: { status: 404, json: { message: 'Unknown route', code: 0 } },
    routes: [
      {
        method: 'POST',
        path: POST_MESSAGE,
        answer: (request): LoopbackAnswer => {
          const message = {
            ...(request.body as object),
            id: nextId(),
            channel_id: request.params[0] as string,
          };
          sent.push(message);
          progress.poke();
          const stamp = new Date(clock.now()).toISOString();
          return { json: { ...message, timestamp: stamp, author: { id: applicationId, bot: true } } };
        },
      },
      {
        method: 'POST',
        path: /^\/api\/v10\/channels\/(\d+)\/messages\/\d+\/threads$/,
        answer: (request) => {
          const id = nextId();
          const parent = request.params[0] as string;
          threads.set(id, parent);
          const name = (request.body as { name?: unknown } | undefined)?.name;
          return { status: 201, json: { id, parent_id: parent, type: 11, name } };
        },
      },
      {
        method: 'GET',
        path: /^\/api\/v10\/channels\/(\d+)$/,
        answer: (request) => {
          const id = request.params[0] as string;
          const parent = threads.get(id);
          if (parent === undefined && id !== channelId)
            return { status: 404, json: { message: 'Unknown Channel', code: 10003 } };
          return { json: { id, type: parent === undefined ? 0 : 11, parent_id: parent ?? null } };
        },
      },
    ],
  });

  return {
    url: `${server.url}/api/v10`,
    applicationId,
    botToken,
    publicKey,
    guildId,
    channelId,
    chatId: `discord:${guildId}:${channelId}`,
    adapterConfig: { apiUrl: `${server.url}/api/v10`, applicationId, botToken, publicKey },
    sent,
    threads,
    deliverTo(endpoint) {
      bot = endpoint;
    },
    message(from, content, more = {}) {
      const at = more.at ?? clock.now();
      const data = {
        id: more.id ?? snowflakeAt(at, 100 + (delivered++ % 1000)),
        channel_id: more.channelId ?? channelId,
        guild_id: guildId,
        channel_type: more.channelId === undefined ? 0 : 11,
        author: { id: from.id, username: from.username, global_name: null, bot: more.bot ?? false },
        content: more.mention === true ? `<@${applicationId}> ${content}` : content,
        timestamp: new Date(at).toISOString(),
        mentions: more.mention === true ? [{ id: applicationId, username: 'bot', bot: true }] : [],
        mention_roles: [],
        attachments: [],
      };
      const event = { type: 'GATEWAY_MESSAGE_CREATE', timestamp: clock.now(), data };
      return deliverTo(bot, JSON.stringify(event), { 'x-discord-gateway-token': botToken });
    },
    async click(from, message, button, more = {}) {
      const customId = (message.components ?? []).flatMap((row) => row.components)[button]?.custom_id;
      if (customId === undefined)
        throw new ChatSdkAdapterError(
          'invalid_argument',
          `the message ${message.id} has no button ${button}`,
        );
      const body = JSON.stringify({
        id: more.id ?? snowflakeAt(clock.now(), 2000 + (delivered++ % 1000)),
        application_id: applicationId,
        type: 3,
        token: 'interaction-token',
        version: 1,
        guild_id: guildId,
        channel_id: message.channel_id,
        channel: { id: message.channel_id, type: threads.has(message.channel_id) ? 11 : 0 },
        member: { user: { id: from.id, username: from.username, global_name: null } },
        message: { id: message.id, channel_id: message.channel_id },
        data: { custom_id: customId, component_type: 2 },
      });
      const timestamp = String(Math.floor(clock.now() / 1000));
      const key = more.forged === true ? forger.privateKey : keys.privateKey;
      const signature = sign(null, Buffer.from(timestamp + body), key).toString('hex');
      return deliverTo(bot, body, { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp });
    },
    waitForSent: (count = 1) =>
      progress.waitFor(() => sent.length >= count, `${count} message(s) sent to Discord`),
    failNext(status, body) {
      server.failNext(POST_MESSAGE, { status, json: body });
    },
    close: () => server.close(),
  };
}
