import type { ChannelAdapter } from '@parley/bus';
import { type Clock, createRecentMap, generateId, type IdGenerator, systemClock } from '@parley/core';
import { TOPIC_CARD, TOPIC_ROBOT } from 'dingtalk-stream';
import { DingTalkAdapterError } from './errors.js';
import type { ChatPlace } from './inbound.js';
import { createOpenApi } from './internal/openapi.js';
import { type SendTargets, sendOutbound } from './internal/send.js';
import { type StreamSide, streamListeners } from './internal/stream.js';
import type { DingTalkStreamClient } from './stream-client.js';

/**
 * Options for {@link createDingTalkAdapter}.
 *
 * @example
 * ```ts
 * import type { DingTalkAdapterOptions } from '@parley/dingtalk';
 * import { DWClient } from 'dingtalk-stream';
 *
 * const client = new DWClient({ clientId: 'dingexample', clientSecret: 'secret' }); // not connected
 * const options: DingTalkAdapterOptions = { client, robotCode: 'dingbot123', botName: 'Ops bot' };
 * ```
 */
export interface DingTalkAdapterOptions {
  /** The stream client (`new DWClient({ clientId, clientSecret })`), not yet connected. */
  readonly client: DingTalkStreamClient;
  /** The robot's code (the app key for an app robot): the sender of every message. */
  readonly robotCode: string;
  /** Also strips a leading `@botName` a client left in a group message. */
  readonly botName?: string;
  /** With it, cards go out as interactive cards of this template (clicks come back on the stream). */
  readonly cardTemplateId?: string;
  /** The OpenAPI's base; `https://api.dingtalk.com` by default. */
  readonly apiBase?: string;
  /** The channel name in session keys; `dingtalk` by default. */
  readonly channel?: string;
  /** Times the access token; the system clock by default. */
  readonly clock?: Clock;
  /** Makes card `outTrackId`s; nanoid with a `parley_` prefix by default. */
  readonly generateId?: IdGenerator;
  /** Conversations and cards remembered (direct chat recipients, clicked cards); 1000 by default. */
  readonly maxRemembered?: number;
  /** Hears stream messages that could not reach the bus (`not_delivered`). */
  readonly onError?: (error: DingTalkAdapterError) => void;
}

const DEFAULT_MAX_REMEMBERED = 1000;

/**
 * Creates a DingTalk `ChannelAdapter` over dingtalk-stream: robot messages and card
 * callbacks pushed on the stream become bus inputs (acknowledged once the bus has taken them),
 * and outbound messages go out through the OpenAPI's robot send endpoints, or as interactive
 * cards when a card template is configured.
 *
 * Use one per robot. Attaching it registers the stream listeners and connects the client;
 * detaching disconnects it. A send DingTalk refuses or rate-limits rejects with a
 * {@link DingTalkAdapterError}, which the bus reports as a `send_failed` result and a `dropped` event.
 *
 * @throws DingTalkAdapterError `invalid_argument` for an empty `robotCode` or a bad `maxRemembered`.
 * @example
 * ```ts
 * import { createDingTalkAdapter } from '@parley/dingtalk';
 * import { DWClient } from 'dingtalk-stream';
 *
 * const client = new DWClient({ clientId: 'dingexample', clientSecret: 'secret' }); // not connected
 * const adapter = createDingTalkAdapter({ client, robotCode: 'dingbot123' });
 * console.log(adapter.channel); // dingtalk
 * ```
 */
export function createDingTalkAdapter(options: DingTalkAdapterOptions): ChannelAdapter {
  const { client, robotCode, onError } = options;
  const max = checkOptions(robotCode, options.maxRemembered ?? DEFAULT_MAX_REMEMBERED);
  const channel = options.channel ?? 'dingtalk';
  const newTrackId = options.generateId ?? (() => generateId('parley_'));
  const chats = createRecentMap<string, ChatPlace>({ maxEntries: max });
  const cards = createRecentMap<string, ChatPlace>({ maxEntries: max });
  const config = client.getConfig();
  const api = createOpenApi({
    apiBase: options.apiBase ?? 'https://api.dingtalk.com',
    appKey: config.clientId,
    appSecret: config.clientSecret,
    clock: options.clock ?? systemClock,
  });
  const sendTargets: SendTargets = {
    api,
    robotCode,
    cardTemplateId: options.cardTemplateId,
    newTrackId,
    chats,
    cards,
  };
  const stream: StreamSide = { client, channel, botName: options.botName, onError, chats, cards };

  return {
    channel,
    send: (message) => sendOutbound(sendTargets, message),
    async connect(deliver) {
      const { robot, card } = streamListeners(stream, deliver);
      client.registerCallbackListener(TOPIC_ROBOT, robot);
      client.registerCallbackListener(TOPIC_CARD, card);
      await client.connect();
      return () => {
        client.off(TOPIC_ROBOT, robot);
        client.off(TOPIC_CARD, card);
        client.disconnect();
      };
    },
  };
}

/** Checks the options a DingTalk adapter cannot work without; returns `maxRemembered`. */
function checkOptions(robotCode: string, max: number): number {
  if (typeof robotCode !== 'string' || robotCode === '') {
    throw new DingTalkAdapterError('invalid_argument', 'robotCode must be the robot’s code');
  }
  if (!Number.isInteger(max) || max < 1) {
    throw new DingTalkAdapterError(
      'invalid_argument',
      `maxRemembered must be a positive integer, got ${max}`,
      {
        details: { maxRemembered: max },
      },
    );
  }
  return max;
}
