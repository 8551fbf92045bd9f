import type { InboundInput } from '@parley/bus';
import type { ActionEvent, Message, Thread } from 'chat';
import { placeOfId } from './order.js';
import type { ChatSdkAdapterOptions } from './types.js';

/** The bus's chat and thread of a Chat SDK thread: the channel, and the thread when it is one. */
export function addressOf(thread: Pick<Thread, 'id' | 'channelId'>): {
  readonly chatId: string;
  readonly threadId?: string;
} {
  return thread.id === thread.channelId
    ? { chatId: thread.channelId }
    : { chatId: thread.channelId, threadId: thread.id };
}

/** The platform of a Chat SDK id: the part before the first colon (`discord:…` → `discord`). */
export function platformOf(id: string): string {
  return id.slice(0, Math.max(0, id.indexOf(':')));
}

/**
 * A Chat SDK message (new or edited) as what the bus gets: the author as sender, the platform's
 * message id as event id (an edit's event id adds when it was edited), its order read from the id.
 */
export function mapMessage(
  thread: Pick<Thread, 'id' | 'channelId'>,
  message: Message,
  kind: 'message' | 'edit',
  options: Pick<ChatSdkAdapterOptions, 'order'> & { readonly channel: string },
): Omit<InboundInput, 'channel'> {
  const address = addressOf(thread);
  const platform = platformOf(thread.id);
  const place = placeOfId(platform, message.id);
  const position = place?.position ?? options.order?.(platform, message);
  const editedAt = message.metadata.editedAt?.getTime();
  return {
    ...address,
    kind,
    senderId: message.author.userId,
    text: message.isMention === true ? withoutLeadingMentions(message.text) : message.text,
    eventId: kind === 'edit' ? `${message.id}:edit:${editedAt ?? 'unknown'}` : message.id,
    createdAt: place?.at ?? message.metadata.dateSent.getTime(),
    ...(position === undefined ? {} : { order: { scope: `${options.channel}:${address.chatId}`, position } }),
    senderIsBot: message.author.isBot === true,
    fromSelf: message.author.isMe,
    raw: message.raw,
  };
}

/** A leading mention: Discord `<@id>` / `<@!id>` / `<@&role>`, Slack `<@U1|name>`, Teams `<at>…</at>`, `@name`. */
const LEADING_MENTION = /^(?:<@[!&]?[\w.|-]+>|<at>[^<]*<\/at>|@\S+)\s*/u;

/**
 * The text of a message that mentions the bot without the mentions it starts with, so that
 * "@bot 确认" is the answer 确认; mentions later in the text stay.
 */
function withoutLeadingMentions(text: string): string {
  let rest = text.trim();
  for (let match = LEADING_MENTION.exec(rest); match !== null; match = LEADING_MENTION.exec(rest)) {
    rest = rest.slice(match[0].length);
  }
  return rest;
}

/**
 * A click on one of the adapter's buttons: the value it carries is the bus's button value (JSON);
 * `undefined` when that value is not JSON.
 */
export function mapAction(event: ActionEvent): Omit<InboundInput, 'channel'> | undefined {
  let action: unknown;
  try {
    action = JSON.parse(event.value ?? '');
  } catch {
    return undefined;
  }
  const channelId = event.thread?.channelId ?? event.threadId;
  const address = addressOf({ id: event.threadId, channelId });
  const raw = event.raw as { readonly id?: unknown } | null; // the platform's interaction, read by shape
  return {
    ...address,
    kind: 'card_action',
    senderId: event.user.userId,
    text: '',
    action: action as InboundInput['action'], // parsed from JSON text, so JSON
    ...(typeof raw?.id === 'string' ? { eventId: `action:${raw.id}` } : {}),
    senderIsBot: event.user.isBot === true,
    fromSelf: event.user.isMe,
    raw: event.raw,
  };
}
