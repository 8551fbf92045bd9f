import type { InboundInput, PlatformOrder } from '@parley/bus';
import type { JsonValue } from '@parley/core';

/**
 * A user id in the three forms Feishu sends; the adapter uses `open_id` first.
 *
 * @example
 * ```ts
 * import type { FeishuUserId } from '@parley/feishu';
 *
 * const id: FeishuUserId = { open_id: 'ou_alice', user_id: 'u_alice', union_id: 'on_alice' };
 * ```
 */
export interface FeishuUserId {
  readonly open_id?: string | undefined;
  readonly user_id?: string | undefined;
  readonly union_id?: string | undefined;
}

/**
 * An `im.message.receive_v1` event as the SDK's `EventDispatcher` hands it to a handler: the
 * header's fields (`event_id`, `create_time`…) and the event's (`sender`, `message`) side by side.
 *
 * @example
 * ```ts
 * import type { FeishuMessageEvent } from '@parley/feishu';
 *
 * const event: FeishuMessageEvent = {
 *   event_id: '5e3702a84e847582be8db7fb73283c02',
 *   sender: { sender_id: { open_id: 'ou_alice' }, sender_type: 'user' },
 *   message: {
 *     message_id: 'om_1', chat_id: 'oc_ops', chat_type: 'group', message_type: 'text',
 *     create_time: '1767225605000', content: '{"text":"@_user_1 确认"}',
 *     mentions: [{ key: '@_user_1', id: { open_id: 'ou_bot' }, name: 'Ops bot' }],
 *   },
 * };
 * ```
 */
export interface FeishuMessageEvent {
  readonly event_id?: string | undefined;
  readonly uuid?: string | undefined;
  readonly sender?: {
    readonly sender_id?: FeishuUserId | undefined;
    readonly sender_type?: string | undefined;
  };
  readonly message?: {
    readonly message_id: string;
    readonly root_id?: string | undefined;
    readonly thread_id?: string | undefined;
    readonly chat_id: string;
    readonly chat_type?: string | undefined;
    readonly message_type?: string | undefined;
    readonly create_time?: string | undefined;
    readonly content?: string | undefined;
    readonly mentions?:
      | readonly { readonly key: string; readonly id?: FeishuUserId; readonly name?: string }[]
      | undefined;
  };
}

/**
 * An `im.message.recalled_v1` event as the SDK hands it to a handler.
 *
 * @example
 * ```ts
 * import type { FeishuRecallEvent } from '@parley/feishu';
 *
 * const event: FeishuRecallEvent = { event_id: 'ev_9', message_id: 'om_1', chat_id: 'oc_ops', recall_time: '1767225609000' };
 * ```
 */
export interface FeishuRecallEvent {
  readonly event_id?: string | undefined;
  readonly message_id?: string | undefined;
  readonly chat_id?: string | undefined;
  readonly recall_time?: string | undefined;
  readonly recall_type?: string | undefined;
}

/**
 * A card button click: a `card.action.trigger` callback as the SDK's `EventDispatcher` hands it
 * over (`operator`, `action`, `context`), or an older card callback as `CardActionHandler` hands
 * it over (`open_id`, `open_chat_id`, `open_message_id`, `action`).
 *
 * @example
 * ```ts
 * import type { FeishuCardAction } from '@parley/feishu';
 *
 * const click: FeishuCardAction = {
 *   event_id: 'ev_2',
 *   operator: { open_id: 'ou_alice' },
 *   action: { tag: 'button', value: { confirmation: 'cfm_1.confirm' } },
 *   context: { open_message_id: 'om_5', open_chat_id: 'oc_ops' },
 * };
 * ```
 */
export interface FeishuCardAction {
  readonly event_id?: string | undefined;
  readonly token?: string | undefined;
  readonly operator?: FeishuUserId | undefined;
  readonly open_id?: string | undefined;
  readonly open_chat_id?: string | undefined;
  readonly open_message_id?: string | undefined;
  readonly action?: { readonly tag?: string; readonly value?: unknown } | undefined;
  readonly context?:
    | { readonly open_message_id?: string | undefined; readonly open_chat_id?: string | undefined }
    | undefined;
}

/** Where a message the adapter saw or sent lives, remembered by message id. */
export interface MessagePlace {
  readonly chatId: string;
  readonly threadId?: string | undefined;
  readonly senderId?: string | undefined;
}

/** The key under which a button value that is not an object travels (Feishu wants an object). */
export const WRAPPED_VALUE_KEY = 'parley_value';

/**
 * A message's place in its chat's order: its `create_time`, the decimal text of epoch ms that
 * Feishu stamps on every message (thread messages included, so the scope is the chat). Two
 * messages of one millisecond compare as the same place, which never counts as "after"; the
 * message id is no order and breaks no tie. Anything but a positive whole number gives no order.
 */
export function createTimeOrder(
  channel: string,
  chatId: unknown,
  createTime: unknown,
): PlatformOrder | undefined {
  if (typeof chatId !== 'string' || chatId === '') return undefined;
  if (typeof createTime !== 'string' || !/^\d{1,16}$/.test(createTime)) return undefined;
  const ms = Number(createTime);
  return Number.isSafeInteger(ms) && ms > 0 ? { scope: `${channel}:${chatId}`, position: [ms] } : undefined;
}

/** The bus input for a received message, or `undefined` when it has no sender or chat. */
export function messageToInbound(
  event: FeishuMessageEvent,
  botOpenId: string,
  channel: string,
): Omit<InboundInput, 'channel'> | undefined {
  const { message, sender } = event;
  const senderId = idOf(sender?.sender_id);
  if (message === undefined || senderId === undefined || typeof message.chat_id !== 'string')
    return undefined;
  const createdAt = Number(message.create_time);
  const eventId = event.event_id ?? event.uuid;
  return {
    chatId: message.chat_id,
    // A message of a thread (topic) carries thread_id; its root message is what a reply goes under.
    ...(message.thread_id !== undefined && message.root_id !== undefined
      ? { threadId: message.root_id }
      : {}),
    senderId,
    senderIsBot: sender?.sender_type !== undefined && sender.sender_type !== 'user',
    fromSelf: senderId === botOpenId,
    text: textOf(message, botOpenId),
    eventId: eventId ?? `message:${message.message_id}`,
    ...(Number.isFinite(createdAt) && createdAt > 0 ? { createdAt } : {}),
    order: createTimeOrder(channel, message.chat_id, message.create_time),
    raw: event,
  };
}

/** The bus input for a recall; the sender is the one remembered for the message, if any. */
export function recallToInbound(
  event: FeishuRecallEvent,
  place: MessagePlace | undefined,
): Omit<InboundInput, 'channel'> | undefined {
  const chatId = event.chat_id ?? place?.chatId;
  if (chatId === undefined || event.message_id === undefined) return undefined;
  const createdAt = Number(event.recall_time);
  return {
    chatId,
    ...(place?.threadId === undefined ? {} : { threadId: place.threadId }),
    senderId: place?.senderId ?? 'unknown',
    kind: 'recall',
    eventId: event.event_id ?? `recall:${event.message_id}`,
    ...(Number.isFinite(createdAt) && createdAt > 0 ? { createdAt } : {}),
    raw: event,
  };
}

/** The bus input for a card click, or `undefined` when it names no user or chat. */
export function cardToInbound(
  click: FeishuCardAction,
  place: MessagePlace | undefined,
): Omit<InboundInput, 'channel'> | undefined {
  const senderId = idOf(click.operator) ?? click.open_id;
  const chatId = click.context?.open_chat_id ?? click.open_chat_id ?? place?.chatId;
  if (senderId === undefined || chatId === undefined) return undefined;
  const eventId = click.event_id ?? (click.token === undefined ? undefined : `card:${click.token}`);
  return {
    chatId,
    ...(place?.threadId === undefined ? {} : { threadId: place.threadId }),
    senderId,
    kind: 'card_action',
    action: unwrapValue(click.action?.value),
    // No creation time on a click: the bus stamps receivedAt, which the gate reads instead.
    ...(eventId === undefined ? {} : { eventId }),
    raw: click,
  };
}

/** A button value as sent: objects travel as they are, anything else under {@link WRAPPED_VALUE_KEY}. */
export function unwrapValue(value: unknown): JsonValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return (value ?? null) as JsonValue; // JSON from the platform
  const record = value as Record<string, JsonValue>; // parsed JSON
  const keys = Object.keys(record);
  return keys.length === 1 && keys[0] === WRAPPED_VALUE_KEY
    ? (record[WRAPPED_VALUE_KEY] as JsonValue)
    : record;
}

function idOf(id: FeishuUserId | undefined): string | undefined {
  return id?.open_id ?? id?.user_id ?? id?.union_id;
}

/**
 * The text of a message: a `text` message's text, or the text runs of a `post`; the bot's own
 * mention placeholders (`@_user_1`) removed, other members' replaced by `@name`.
 */
function textOf(message: NonNullable<FeishuMessageEvent['message']>, botOpenId: string): string {
  let content: unknown;
  try {
    content = JSON.parse(message.content ?? '');
  } catch {
    return '';
  }
  let text = '';
  if (message.message_type === 'text') text = stringField(content, 'text');
  else if (message.message_type === 'post') text = postText(content);
  for (const mention of message.mentions ?? []) {
    const self = mention.id?.open_id === botOpenId;
    text = text.split(mention.key).join(self ? '' : `@${mention.name ?? ''}`);
  }
  return text.replace(/\s+/g, ' ').trim();
}

function postText(content: unknown): string {
  // A post is { title, content: [[{ tag, text }]] }, possibly under a locale key (zh_cn, en_us).
  const post =
    typeof content === 'object' && content !== null && !('content' in content)
      ? Object.values(content)[0]
      : content;
  const rows = (post as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(rows)) return '';
  return rows
    .map((row: unknown) =>
      Array.isArray(row)
        ? row
            .map((run: unknown) =>
              stringField(run, 'tag') === 'at' ? stringField(run, 'user_id') : stringField(run, 'text'),
            )
            .join('')
        : '',
    )
    .join('\n');
}

function stringField(value: unknown, key: string): string {
  if (typeof value !== 'object' || value === null) return '';
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : '';
}
