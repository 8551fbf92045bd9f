import type { InboundInput, PlatformOrder } from '@parley/bus';
import type { JsonValue } from '@parley/core';

/**
 * A robot message as DingTalk pushes it on the stream topic `/v1.0/im/bot/messages/get` (the
 * frame's `data`, parsed): `conversationType` `'1'` is a direct chat, `'2'` a group.
 *
 * @example
 * ```ts
 * import type { DingTalkRobotMessage } from '@parley/dingtalk';
 *
 * const message: DingTalkRobotMessage = {
 *   conversationId: 'cidQ9bCw8YyUu6Hc1Aq==', conversationType: '2', msgId: 'msgIuJMq3a1Q==',
 *   msgtype: 'text', text: { content: ' 确认' }, senderStaffId: 'manager4521', senderId: '$:LWCP_v1:$abc',
 *   chatbotUserId: '$:LWCP_v1:$bot', createAt: 1767225605000, robotCode: 'dingbot123',
 * };
 * ```
 */
export interface DingTalkRobotMessage {
  readonly conversationId: string;
  readonly conversationType?: string | undefined;
  readonly msgId?: string | undefined;
  readonly msgtype?: string | undefined;
  readonly text?: { readonly content?: string | undefined } | undefined;
  readonly content?: unknown;
  readonly senderId?: string | undefined;
  readonly senderStaffId?: string | undefined;
  readonly senderNick?: string | undefined;
  readonly chatbotUserId?: string | undefined;
  readonly robotCode?: string | undefined;
  readonly createAt?: number | undefined;
  readonly atUsers?: readonly { readonly dingtalkId?: string; readonly staffId?: string }[] | undefined;
  readonly isInAtList?: boolean | undefined;
}

/**
 * A card callback as DingTalk pushes it on the stream topic `/v1.0/card/instances/callback` (the
 * frame's `data`, parsed): who clicked (`userId`), which card (`outTrackId`) and the params the
 * button sent (`content.cardPrivateData.params`, `content` being JSON text).
 *
 * @example
 * ```ts
 * import type { DingTalkCardCallback } from '@parley/dingtalk';
 *
 * const click: DingTalkCardCallback = {
 *   outTrackId: 'parley_V1StGXR8', userId: 'manager4521', spaceType: 'IM_GROUP', spaceId: 'cidQ9bCw8YyUu6Hc1Aq==',
 *   content: '{"cardPrivateData":{"actionIds":["confirm"],"params":{"value":"{\\"confirmation\\":\\"cfm_1.confirm\\"}"}}}',
 * };
 * ```
 */
export interface DingTalkCardCallback {
  readonly outTrackId?: string | undefined;
  readonly userId?: string | undefined;
  readonly corpId?: string | undefined;
  readonly spaceType?: string | undefined;
  readonly spaceId?: string | undefined;
  readonly content?: unknown;
}

/** What the adapter remembers of a conversation or a card it sent. */
export interface ChatPlace {
  readonly chatId: string;
  /** `'1'` direct, `'2'` group. */
  readonly conversationType?: string | undefined;
  /** In a direct chat: the user the robot answers. */
  readonly staffId?: string | undefined;
}

/**
 * A robot message's place in its conversation's order: its `createAt`, the epoch ms DingTalk
 * stamps on it. Two messages of one millisecond compare as the same place, which never counts as
 * "after"; `msgId` is no order and breaks no tie. Anything but a positive whole number of ms gives
 * no order.
 */
function createAtOrder(
  channel: string,
  conversationId: string,
  createAt: unknown,
): PlatformOrder | undefined {
  return typeof createAt === 'number' && Number.isSafeInteger(createAt) && createAt > 0
    ? { scope: `${channel}:${conversationId}`, position: [createAt] }
    : undefined;
}

/** The bus input for a robot message, or `undefined` when it names no conversation or sender. */
export function robotToInbound(
  message: DingTalkRobotMessage,
  streamMessageId: string,
  botName: string | undefined,
  channel: string,
): Omit<InboundInput, 'channel'> | undefined {
  const senderId = message.senderStaffId || message.senderId;
  if (typeof message.conversationId !== 'string' || message.conversationId === '' || !senderId)
    return undefined;
  const createdAt = Number(message.createAt);
  return {
    chatId: message.conversationId,
    senderId,
    fromSelf: message.chatbotUserId !== undefined && message.senderId === message.chatbotUserId,
    text: textOf(message, botName),
    // msgId stays the same when DingTalk pushes a message again.
    eventId: message.msgId || `stream:${streamMessageId}`,
    ...(Number.isFinite(createdAt) && createdAt > 0 ? { createdAt } : {}),
    order: createAtOrder(channel, message.conversationId, message.createAt),
    raw: message,
  };
}

/** The bus input for a card click, or `undefined` when it names no user or conversation. */
export function cardToInbound(
  click: DingTalkCardCallback,
  streamMessageId: string,
  place: ChatPlace | undefined,
): Omit<InboundInput, 'channel'> | undefined {
  const chatId = place?.chatId ?? click.spaceId;
  if (!click.userId || !chatId) return undefined;
  return {
    chatId,
    senderId: click.userId,
    kind: 'card_action',
    action: actionOf(click.content),
    eventId: `card:${streamMessageId}`,
    raw: click,
  };
}

/** The button's value: `params.value` is the JSON text the adapter put on the button. */
function actionOf(content: unknown): JsonValue {
  const parsed = typeof content === 'string' ? parse(content) : content;
  const params = (parsed as { cardPrivateData?: { params?: Record<string, unknown> } } | null)
    ?.cardPrivateData?.params;
  const value = params?.['value'];
  if (typeof value !== 'string') return (params ?? null) as JsonValue; // the template sent its own params
  const inner = parse(value);
  return (inner === undefined ? value : inner) as JsonValue; // JSON text, or the plain string
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The text of a message, trimmed, with a leading `@botName` left by the client removed. */
function textOf(message: DingTalkRobotMessage, botName: string | undefined): string {
  let text = '';
  if (message.msgtype === 'text') text = message.text?.content ?? '';
  else if (message.msgtype === 'richText') {
    const runs = (message.content as { richText?: unknown } | undefined)?.richText;
    if (Array.isArray(runs)) {
      text = runs.map((run: { text?: unknown }) => (typeof run?.text === 'string' ? run.text : '')).join('');
    }
  }
  text = text.trim();
  if (botName !== undefined && text.startsWith(`@${botName}`)) text = text.slice(botName.length + 1).trim();
  return text;
}
