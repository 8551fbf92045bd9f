import type { ChannelAdapter, DeliverInbound, InboundInput, PublishResult, SendReceipt } from '@parley/bus';
import { type Clock, createRecentMap, generateId, type IdGenerator, systemClock } from '@parley/core';
import { TOPIC_CARD, TOPIC_ROBOT } from 'dingtalk-stream';
import { DingTalkAdapterError } from './errors.js';
import {
  type ChatPlace,
  cardToInbound,
  type DingTalkCardCallback,
  type DingTalkRobotMessage,
  robotToInbound,
} from './inbound.js';
import { createOpenApi } from './internal/openapi.js';
import { toCardParams, toRobotMessage } from './outbound.js';

/**
 * One frame DingTalk pushes on the stream (`DWClientDownStream`): its headers and its `data`,
 * the JSON text of the message or callback.
 *
 * @example
 * ```ts
 * import type { DingTalkStreamFrame } from '@parley/dingtalk';
 *
 * const frame: DingTalkStreamFrame = {
 *   headers: { messageId: 'a1b2c3d4-5e6f', topic: '/v1.0/im/bot/messages/get' },
 *   data: '{"conversationId":"cid1","msgId":"m1","msgtype":"text","text":{"content":"hi"},"senderStaffId":"u1"}',
 * };
 * ```
 */
export interface DingTalkStreamFrame {
  readonly headers: { readonly messageId: string; readonly topic?: string };
  readonly data: string;
}

/**
 * The part of dingtalk-stream's `DWClient` the adapter uses; a `new DWClient({ clientId,
 * clientSecret })` is one. The adapter registers its listeners and connects it.
 *
 * @example
 * ```ts
 * import type { DingTalkStreamClient } from '@parley/dingtalk';
 *
 * function describe(client: DingTalkStreamClient): string {
 *   return client.getConfig().clientId;
 * }
 * ```
 */
export interface DingTalkStreamClient {
  /** Subscribes to a CALLBACK topic (before `connect`: the subscriptions go to the gateway). */
  registerCallbackListener(topic: string, callback: (frame: DingTalkStreamFrame) => void): unknown;
  /** Removes a listener (the client is an EventEmitter). */
  off(topic: string, callback: (frame: DingTalkStreamFrame) => void): unknown;
  /** Acknowledges a pushed message so DingTalk does not push it again. */
  socketCallBackResponse(messageId: string, result: unknown): void;
  /** Opens the stream: the gateway's connections/open, then the WebSocket. */
  connect(): Promise<void>;
  /** Closes the stream. */
  disconnect(): void;
  /** The app's credentials, also used for the OpenAPI's access token. */
  getConfig(): { readonly clientId: string; readonly clientSecret: string };
}

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
  const max = options.maxRemembered ?? DEFAULT_MAX_REMEMBERED;
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
  /** Delivers, then acknowledges unless the bus could not take it now (DingTalk pushes it again). */
  async function handle(
    deliver: DeliverInbound,
    frame: DingTalkStreamFrame,
    input: Omit<InboundInput, 'channel'> | undefined,
  ): Promise<void> {
    const { messageId } = frame.headers;
    const result: PublishResult | undefined = input === undefined ? undefined : await deliver(input);
    if (result?.status === 'rejected' && (result.code === 'queue_full' || result.code === 'closed')) {
      onError?.(
        new DingTalkAdapterError(
          'not_delivered',
          `The bus refused a DingTalk stream message: ${result.code}`,
          {
            details: { code: result.code, messageId },
          },
        ),
      );
      return;
    }
    client.socketCallBackResponse(messageId, {});
  }

  /** The stream listeners of one attachment. */
  function listeners(
    deliver: DeliverInbound,
  ): Record<'robot' | 'card', (frame: DingTalkStreamFrame) => void> {
    return {
      robot(frame) {
        const message = parse(frame.data) as DingTalkRobotMessage | undefined;
        const input =
          message === undefined
            ? undefined
            : robotToInbound(message, frame.headers.messageId, options.botName, channel);
        if (message !== undefined && input !== undefined) {
          chats.set(input.chatId, {
            chatId: input.chatId,
            conversationType: message.conversationType,
            staffId: message.conversationType === '1' ? input.senderId : undefined,
          });
        }
        void handle(deliver, frame, input);
      },
      card(frame) {
        const click = parse(frame.data) as DingTalkCardCallback | undefined;
        const place = click?.outTrackId === undefined ? undefined : cards.get(click.outTrackId);
        const input = click === undefined ? undefined : cardToInbound(click, frame.headers.messageId, place);
        void handle(deliver, frame, input);
      },
    };
  }

  async function sendCard(
    message: Parameters<ChannelAdapter['send']>[0],
    place: ChatPlace | undefined,
  ): Promise<void> {
    const outTrackId = newTrackId();
    const direct = place?.conversationType === '1';
    await api.post(
      '/v1.0/card/instances/createAndDeliver',
      {
        cardTemplateId: options.cardTemplateId,
        outTrackId,
        callbackType: 'STREAM',
        cardData: { cardParamMap: toCardParams(message) },
        ...(direct
          ? {
              openSpaceId: `dtv1.card//IM_ROBOT.${place?.staffId}`,
              imRobotOpenSpaceModel: { supportForward: false },
              imRobotOpenDeliverModel: { spaceType: 'IM_ROBOT', robotCode },
            }
          : {
              openSpaceId: `dtv1.card//IM_GROUP.${message.chatId}`,
              imGroupOpenSpaceModel: { supportForward: false },
              imGroupOpenDeliverModel: { robotCode },
            }),
      },
      'card.createAndDeliver',
    );
    cards.set(outTrackId, { chatId: message.chatId });
  }

  return {
    channel,
    async send(message): Promise<SendReceipt> {
      const place = chats.get(message.chatId);
      if (message.card !== undefined && options.cardTemplateId !== undefined) {
        await sendCard(message, place);
      } else if (place?.conversationType === '1') {
        await api.post(
          '/v1.0/robot/oToMessages/batchSend',
          { robotCode, userIds: [place.staffId], ...toRobotMessage(message) },
          'robot.oToMessages.batchSend',
        );
      } else {
        await api.post(
          '/v1.0/robot/groupMessages/send',
          { robotCode, openConversationId: message.chatId, ...toRobotMessage(message) },
          'robot.groupMessages.send',
        );
      }
      // DingTalk's answer (a processQueryKey, or the card's deliver results) carries no time and no
      // place of the sent message: no order, so a reply that races the send never counts for it.
      return {};
    },
    async connect(deliver) {
      const { robot, card } = listeners(deliver);
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

function parse(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
