import type { InboundInput, PlatformOrder } from '@parley/bus';
import type { Message, MessageEntity, Update, UserFromGetMe } from 'grammy/types';

/** An inbound input without its channel (the bus fills that in). */
export type Inbound = Omit<InboundInput, 'channel'>;

/** What one update maps to: an inbound event, a click to resolve first, or nothing. */
export type Mapped =
  | { readonly kind: 'inbound'; readonly input: Inbound }
  | {
      readonly kind: 'click';
      readonly input: Inbound;
      readonly data: string | undefined;
      readonly queryId: string;
    }
  | { readonly kind: 'skip'; readonly reason: 'unsupported' | 'no_sender' | 'inline_button' };

/**
 * A message's place in its chat's order: Telegram numbers the messages of a chat with increasing
 * `message_id`s (forum topics share their chat's numbering), so the scope is the chat. Anything but
 * a positive safe integer gives no order rather than a wrong one.
 */
export function orderOf(channel: string, chatId: unknown, messageId: unknown): PlatformOrder | undefined {
  if (typeof chatId !== 'number' && typeof chatId !== 'string') return undefined;
  if (typeof messageId !== 'number' || !Number.isSafeInteger(messageId) || messageId < 1) return undefined;
  return { scope: `${channel}:${chatId}`, position: [messageId] };
}

/**
 * Maps one Bot API update. Messages and edits carry `date` / `edit_date` (whole seconds) as
 * `createdAt` in ms, the start of that second, and their `message_id` as their order (an edit keeps
 * the place of the message it edits); a click has no stamp (the bus uses its arrival).
 */
export function mapUpdate(update: Update, me: UserFromGetMe, channel: string): Mapped {
  const query = update.callback_query;
  if (query !== undefined) {
    // An inline-mode button has no chat message: there is no session to answer in.
    if (query.message === undefined) return { kind: 'skip', reason: 'inline_button' };
    return {
      kind: 'click',
      queryId: query.id,
      data: query.data,
      input: {
        ...addressOf(query.message),
        senderId: String(query.from.id),
        senderIsBot: query.from.is_bot,
        fromSelf: query.from.id === me.id,
        kind: 'card_action',
        eventId: `cb:${query.id}`,
        raw: update,
      },
    };
  }
  const edited = update.edited_message;
  const message = edited ?? update.message;
  if (message === undefined) return { kind: 'skip', reason: 'unsupported' };
  // Anonymous group admins and channel posts forwarded to a group have no `from`.
  if (message.from === undefined) return { kind: 'skip', reason: 'no_sender' };
  const text = stripMention(
    message.text ?? message.caption ?? '',
    message.entities ?? message.caption_entities,
    me,
  );
  return {
    kind: 'inbound',
    input: {
      ...addressOf(message),
      senderId: String(message.from.id),
      senderIsBot: message.from.is_bot,
      fromSelf: message.from.id === me.id,
      text,
      kind: edited === undefined ? 'message' : 'edit',
      // A redelivered update carries the same message, so the same id; each edit is its own event.
      eventId:
        edited === undefined
          ? `${message.chat.id}:${message.message_id}`
          : `${message.chat.id}:${message.message_id}:edit:${update.update_id}`,
      createdAt: (edited === undefined ? message.date : (message.edit_date ?? message.date)) * 1000,
      order: orderOf(channel, message.chat.id, message.message_id),
      raw: update,
    },
  };
}

function addressOf(message: Pick<Message, 'chat' | 'message_thread_id'> & { is_topic_message?: boolean }): {
  chatId: string;
  threadId?: string;
} {
  const chatId = String(message.chat.id);
  // Forum topics are threads; a reply chain in an ordinary group stays in the group's session.
  return message.is_topic_message === true && message.message_thread_id !== undefined
    ? { chatId, threadId: String(message.message_thread_id) }
    : { chatId };
}

/**
 * The text without mentions of this bot (`@name` entities naming it, `text_mention`s of its id),
 * trimmed: in a group "@shop_bot 确认" is the answer "确认".
 */
function stripMention(
  text: string,
  entities: readonly MessageEntity[] | undefined,
  me: UserFromGetMe,
): string {
  if (entities === undefined || entities.length === 0) return text.trim();
  const username = `@${me.username}`.toLowerCase();
  const ours = entities
    .filter((entity) =>
      entity.type === 'mention'
        ? text.slice(entity.offset, entity.offset + entity.length).toLowerCase() === username
        : entity.type === 'text_mention' && entity.user.id === me.id,
    )
    .sort((a, b) => b.offset - a.offset);
  if (ours.length === 0) return text.trim();
  let out = text;
  for (const entity of ours) {
    // Join what was either side of the mention with one space.
    out = `${out.slice(0, entity.offset).trimEnd()} ${out.slice(entity.offset + entity.length).trimStart()}`;
  }
  return out.trim();
}
