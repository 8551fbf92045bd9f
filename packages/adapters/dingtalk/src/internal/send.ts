import type { OutboundMessage, SendReceipt } from '@parley/bus';
import type { IdGenerator, RecentMap } from '@parley/core';
import type { ChatPlace } from '../inbound.js';
import { toCardParams, toRobotMessage } from '../outbound.js';
import type { OpenApi } from './openapi.js';

/** What a send needs: the OpenAPI, the robot, the card template, and the adapter's memory of places. */
export interface SendTargets {
  readonly api: OpenApi;
  readonly robotCode: string;
  readonly cardTemplateId: string | undefined;
  readonly newTrackId: IdGenerator;
  /** Where each conversation is (direct chats carry their recipient), keyed by chat id. */
  readonly chats: RecentMap<string, ChatPlace>;
  /** Where each sent card is, keyed by its `outTrackId`; a card send records its own. */
  readonly cards: RecentMap<string, ChatPlace>;
}

/**
 * Sends an outbound message: as an interactive card when it has one and a template is configured,
 * else as a robot message to the direct chat's user or to the group.
 */
export async function sendOutbound(at: SendTargets, message: OutboundMessage): Promise<SendReceipt> {
  const { api, robotCode } = at;
  const place = at.chats.get(message.chatId);
  if (message.card !== undefined && at.cardTemplateId !== undefined) {
    await sendCard(at, message, place);
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
}

async function sendCard(
  at: SendTargets,
  message: OutboundMessage,
  place: ChatPlace | undefined,
): Promise<void> {
  const { robotCode } = at;
  const outTrackId = at.newTrackId();
  const direct = place?.conversationType === '1';
  await at.api.post(
    '/v1.0/card/instances/createAndDeliver',
    {
      cardTemplateId: at.cardTemplateId,
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
  at.cards.set(outTrackId, { chatId: message.chatId });
}
