import type { DingTalkStandInCardOptions, DingTalkStandInMessageOptions } from '../standin-types.js';

/** Who the stand-in is, and the defaults of its injectors. */
export interface StandInApp {
  readonly robotCode: string;
  readonly conversationId: string;
  readonly userId: string;
  readonly corpId: string;
  readonly botUserId: string;
  next(): number;
  now(): number;
}

/** A robot message as DingTalk pushes it on the stream (`data` of a TOPIC_ROBOT frame). */
export function robotMessageOf(
  app: StandInApp,
  content: string,
  options: DingTalkStandInMessageOptions = {},
): Record<string, unknown> {
  const n = app.next();
  const at = app.now();
  const sender = options.sender ?? app.userId;
  const conversationType = options.conversationType ?? '2';
  const group = conversationType === '2';
  return {
    conversationId: options.conversationId ?? (group ? app.conversationId : `cidP2p${sender}==`),
    ...(group
      ? { atUsers: [{ dingtalkId: app.botUserId }], conversationTitle: 'Stand-in group', isInAtList: true }
      : {}),
    chatbotCorpId: app.corpId,
    chatbotUserId: app.botUserId,
    msgId: options.msgId ?? `msgStandIn${n}==`,
    senderNick: sender,
    isAdmin: false,
    senderStaffId: sender,
    sessionWebhookExpiredTime: at + 90 * 60_000,
    createAt: at,
    senderCorpId: app.corpId,
    conversationType,
    senderId: `$:LWCP_v1:$${sender}`,
    sessionWebhook: `https://oapi.dingtalk.com/robot/sendBySession?session=standin${n}`,
    robotCode: app.robotCode,
    msgtype: options.msgtype ?? 'text',
    text: { content },
    ...options.extra,
  };
}

/** An interactive card callback (`data` of a TOPIC_CARD frame): `params` is what the button sends. */
export function cardCallbackOf(
  app: StandInApp,
  params: Readonly<Record<string, unknown>>,
  options: DingTalkStandInCardOptions & { readonly outTrackId: string; readonly spaceId?: string },
): Record<string, unknown> {
  return {
    extension: '{}',
    corpId: app.corpId,
    userId: options.user ?? app.userId,
    outTrackId: options.outTrackId,
    spaceType: 'IM_GROUP',
    spaceId: options.spaceId ?? app.conversationId,
    type: 'actionCallback',
    content: JSON.stringify({ cardPrivateData: { actionIds: ['parley_button'], params } }),
  };
}
