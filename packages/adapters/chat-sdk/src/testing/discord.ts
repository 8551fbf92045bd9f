import { generateKeyPairSync, sign } from 'node:crypto';
import { type Clock, systemClock } from '@parley/core';
import { createProgress } from '@parley/testing';
import { startLoopbackServer } from '@parley/testing/loopback';
import { buttonInteraction, type DiscordScene, gatewayMessage } from './discord-events.js';
import { clockSnowflakes, discordRoutes, POST_MESSAGE } from './discord-rest.js';
import type { DiscordMessageMore, DiscordPostedMessage, DiscordUser } from './discord-types.js';
import { type BotAnswer, type BotEndpoint, deliverTo } from './endpoint.js';

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
  const nextId = clockSnowflakes(clock);
  const scene: DiscordScene = { clock, applicationId, guildId, channelId, threads, delivered: 0 };
  const server = await startLoopbackServer({
    guard: (request) =>
      request.headers.authorization === `Bot ${botToken}`
        ? undefined
        : { status: 401, json: { message: '401: Unauthorized', code: 0 } },
    notFound: { status: 404, json: { message: 'Unknown route', code: 0 } },
    routes: discordRoutes({ clock, applicationId, channelId, nextId, sent, threads, progress }),
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
    message: (from, content, more = {}) =>
      deliverTo(bot, gatewayMessage(scene, from, content, more), { 'x-discord-gateway-token': botToken }),
    async click(from, message, button, more = {}) {
      const body = buttonInteraction(scene, from, message, button, more.id);
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
