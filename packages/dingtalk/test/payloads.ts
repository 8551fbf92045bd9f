// DingTalk's documented stream payloads: a robot message (topic /v1.0/im/bot/messages/get) and an
// interactive card callback (topic /v1.0/card/instances/callback), with their real fields.
export const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
export const GROUP = 'cidQ9bCw8YyUu6Hc1Aq0Zfg==';
export const DIRECT = 'cidP2pAlice7kLm0==';
export const ALICE = 'manager4521';
export const MALLORY = 'staff0666';
export const BOT_UID = '$:LWCP_v1:$botUserIdXyz';
export const ROBOT_CODE = 'dingq7xbm2kz4frsel0n';

let counter = 0;

export interface RobotOptions {
  readonly at: number;
  readonly sender?: string;
  readonly conversationType?: '1' | '2';
  readonly conversationId?: string;
  readonly msgId?: string;
  readonly msgtype?: string;
  readonly extra?: Record<string, unknown>;
}

/** A robot text message as pushed on the stream. */
export function robotMessage(content: string, options: RobotOptions): Record<string, unknown> {
  counter++;
  const sender = options.sender ?? ALICE;
  const group = (options.conversationType ?? '2') === '2';
  return {
    conversationId: options.conversationId ?? (group ? GROUP : DIRECT),
    ...(group ? { atUsers: [{ dingtalkId: BOT_UID }], conversationTitle: 'Ops', isInAtList: true } : {}),
    chatbotCorpId: 'ding9f50b15bccd16741',
    chatbotUserId: BOT_UID,
    msgId: options.msgId ?? `msgIuJMq3a1QY${counter}==`,
    senderNick: sender === ALICE ? 'Alice' : 'Mallory',
    isAdmin: false,
    senderStaffId: sender,
    sessionWebhookExpiredTime: options.at + 90 * 60_000,
    createAt: options.at,
    senderCorpId: 'ding9f50b15bccd16741',
    conversationType: options.conversationType ?? '2',
    senderId: `$:LWCP_v1:$${sender}`,
    sessionWebhook: `https://oapi.dingtalk.com/robot/sendBySession?session=c5f1${counter}`,
    robotCode: ROBOT_CODE,
    msgtype: options.msgtype ?? 'text',
    text: { content },
    ...options.extra,
  };
}

/** An interactive card callback: `params` is what the template's button sends. */
export function cardCallback(
  params: Record<string, unknown>,
  options: { user?: string; outTrackId: string },
): Record<string, unknown> {
  return {
    extension: '{}',
    corpId: 'ding9f50b15bccd16741',
    userId: options.user ?? ALICE,
    outTrackId: options.outTrackId,
    spaceType: 'IM_GROUP',
    spaceId: GROUP,
    type: 'actionCallback',
    content: JSON.stringify({ cardPrivateData: { actionIds: ['parley_button'], params } }),
  };
}
