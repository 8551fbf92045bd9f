import { type Clock, systemClock } from '@parley/core';
import { createProgress } from '@parley/testing';
import { type LoopbackAnswer, startLoopbackServer } from '@parley/testing/loopback';
import { buttonsOf } from './adaptive-card.js';
import { type BotAnswer, type BotEndpoint, deliverTo } from './endpoint.js';
import { createSigningKey, signJwt } from './jwt.js';
import { clickActivity, messageActivity, type TeamsScene } from './teams-activities.js';
import type { TeamsDeliveryMore, TeamsSentActivity, TeamsUser } from './teams-types.js';

/**
 * Options of {@link createTeamsStandIn}.
 *
 * @example
 * ```ts
 * import type { TeamsStandInOptions } from '@parley/chat-sdk/testing';
 *
 * const options: TeamsStandInOptions = { appId: '00000000-0000-0000-0000-000000000001' };
 * ```
 */
export interface TeamsStandInOptions {
  /** Where activities go: the bot's webhook handler or URL; also settable later with `deliverTo`. */
  readonly bot?: BotEndpoint;
  /** The clock of activity ids and timestamps; the system clock by default. */
  readonly clock?: Clock;
  /** The bot's Microsoft app id (the tokens' audience); a fixed test id by default. */
  readonly appId?: string;
  /** The conversation messages come from; a Teams channel (`19:…@thread.tacv2`) by default. */
  readonly conversationId?: string;
}

/**
 * A running stand-in of Microsoft Teams' Bot Framework (see {@link createTeamsStandIn}).
 *
 * @example
 * ```ts
 * import type { TeamsStandIn } from '@parley/chat-sdk/testing';
 *
 * const cardsSent = (teams: TeamsStandIn): number => teams.sent.filter((a) => a.buttons.length > 0).length;
 * ```
 */
export interface TeamsStandIn {
  /** The Bot Connector service URL (`serviceUrl` of every activity), without a trailing slash. */
  readonly url: string;
  readonly appId: string;
  readonly conversationId: string;
  /** What to override in the Teams SDK's cloud so that it trusts the stand-in's tokens. */
  readonly cloud: { readonly openIdMetadataUrl: string; readonly tokenIssuer: string };
  /** What `createTeamsAdapter` of `@chat-adapter/teams` needs to talk to the stand-in. */
  readonly adapterConfig: { readonly appId: string; token(): string };
  /** Every activity the bot sent, in order. */
  readonly sent: readonly TeamsSentActivity[];
  /** A bearer token for the bot's outbound calls (the Chat SDK Teams adapter's `token` option). */
  token(): string;
  /** Sets where activities go. */
  deliverTo(bot: BotEndpoint): void;
  /** A person's message, as a signed `message` activity; `mention` adds an @ of the bot. */
  message(
    from: TeamsUser,
    text: string,
    more?: TeamsDeliveryMore & { readonly mention?: boolean },
  ): Promise<BotAnswer>;
  /**
   * A click on a card button: an `adaptiveCard/action` invoke (`Action.Execute`, the default) or a
   * `message` activity carrying the data (`Action.Submit`), replying to the card's activity;
   * rejects `invalid_argument` for a button the card lacks.
   */
  click(
    from: TeamsUser,
    card: TeamsSentActivity,
    button: number,
    more?: TeamsDeliveryMore & { readonly as?: 'invoke' | 'submit' },
  ): Promise<BotAnswer>;
  /**
   * Resolves once the bot has sent `count` messages in all (1 by default); rejects, naming what it
   * waited for, when none come within a minute of real time.
   */
  waitForSent(count?: number): Promise<void>;
  /** Answers the next activity post with this status and body (429 is a rate limit). */
  failNext(status: number, body?: unknown): void;
  close(): Promise<void>;
}

const DEFAULT_APP_ID = '00000000-0000-0000-0000-00000000b07a';
const DEFAULT_CONVERSATION = '19:parley@thread.tacv2';
const ACTIVITIES = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/;

/**
 * Starts a stand-in of Microsoft Teams' Bot Framework on loopback: it signs the activities it
 * delivers with an RS256 key it publishes at its OpenID metadata, serves the Bot Connector API the
 * bot replies through (`POST {serviceUrl}/v3/conversations/{id}/activities`, checking the bearer
 * token it issued), records what was sent with its Adaptive Card buttons, and injects messages and
 * card clicks. Point the Chat SDK Teams adapter at it with `token: teams.token` and the cloud
 * overrides in `teams.cloud`.
 *
 * @example
 * ```ts
 * import { createTeamsStandIn } from '@parley/chat-sdk/testing';
 *
 * const teams = await createTeamsStandIn({ bot: async () => new Response('{}') });
 * const answer = await teams.message({ id: '29:alice', name: 'Alice' }, 'hello');
 * console.log(answer.status, teams.url.startsWith('http://127.0.0.1:')); // 200 true
 * await teams.close();
 * ```
 */
export async function createTeamsStandIn(options: TeamsStandInOptions = {}): Promise<TeamsStandIn> {
  const clock = options.clock ?? systemClock;
  const appId = options.appId ?? DEFAULT_APP_ID;
  const conversationId = options.conversationId ?? DEFAULT_CONVERSATION;
  const key = createSigningKey('parley-stand-in');
  const forger = createSigningKey('parley-stand-in');
  const sent: TeamsSentActivity[] = [];
  let bot = options.bot;
  const progress = createProgress();
  let seq = 0;
  const nextId = (): string => `${clock.now()}${String(seq++ % 1000).padStart(3, '0')}`;
  const server = await startLoopbackServer({
    guard: (request) =>
      request.path.startsWith('/v3/') && request.headers.authorization !== `Bearer ${outbound}`
        ? { status: 401, json: { error: { code: 'Unauthorized', message: 'bad token' } } }
        : undefined,
    routes: [
      {
        path: '/v1/.well-known/openidconfiguration',
        answer: () => ({ json: { issuer, jwks_uri: `${server.url}/v1/.well-known/keys` } }),
      },
      { path: '/v1/.well-known/keys', answer: () => ({ json: { keys: [key.jwk] } }) },
      {
        method: 'POST',
        path: ACTIVITIES,
        answer: (request): LoopbackAnswer => {
          const activity = request.body as Record<string, unknown>; // the bot's JSON activity
          const id = nextId();
          sent.push({
            id,
            conversationId: decodeURIComponent(request.params[0] as string), // the path matched
            ...(typeof activity.text === 'string' ? { text: activity.text } : {}),
            buttons: buttonsOf(activity),
            activity,
          });
          progress.poke();
          return { status: 201, json: { id } };
        },
      },
    ],
  });
  const issuer = server.url;
  const outbound = signJwt(key, { iss: issuer, aud: 'https://api.botframework.com', appid: appId });

  function deliver(activity: Record<string, unknown>, more: TeamsDeliveryMore): Promise<BotAnswer> {
    const claims = { iss: issuer, aud: appId, serviceurl: server.url, iat: Math.floor(clock.now() / 1000) };
    const jwt = signJwt(more.forged === true ? forger : key, claims);
    return deliverTo(bot, JSON.stringify(activity), { authorization: `Bearer ${jwt}` });
  }

  const scene: TeamsScene = { clock, appId, conversationId, serviceUrl: server.url, nextId };

  return {
    url: server.url,
    appId,
    conversationId,
    cloud: { openIdMetadataUrl: `${server.url}/v1/.well-known/openidconfiguration`, tokenIssuer: issuer },
    sent,
    token: () => outbound,
    adapterConfig: { appId, token: () => outbound },
    deliverTo(endpoint) {
      bot = endpoint;
    },
    message: (from, text, more = {}) => deliver(messageActivity(scene, from, text, more), more),
    click: async (from, card, button, more = {}) =>
      deliver(clickActivity(scene, from, card, button, more), more),
    waitForSent: (count = 1) =>
      progress.waitFor(() => sent.length >= count, `${count} message(s) sent to Teams`),
    failNext(status, body = { error: { code: 'Throttled', message: `HTTP ${status}` } }) {
      server.failNext(ACTIVITIES, { status, json: body });
    },
    close: () => server.close(),
  };
}
