// What the stand-in remembers of its chats, as Telegram would: the chats it has seen, each chat's
// message numbering (shared by users' messages and the bot's, increasing), and the messages the
// bot sent (to edit them and to click their buttons).
import type { TelegramStandInChat, TelegramStandInMessage } from '../standin-update-types.js';

/** The first `message_id` of a chat is this plus one. */
const FIRST_MESSAGE_ID = 100;

export interface StandInChats {
  /** The chat with this id as last seen, or one made up from the id (`@name`: a channel). */
  chatOf(id: unknown): TelegramStandInChat;
  /** Remembers a chat seen in an injected update. */
  remember(chat: TelegramStandInChat): void;
  /** The next `message_id` of the chat (per chat, increasing), or `forced`, which later ids pass. */
  nextMessageId(chatId: number, forced?: number): number;
  /** Keeps a message the bot sent, or its edited version. */
  keep(message: TelegramStandInMessage): void;
  /** A message the bot sent, by chat and `message_id`. */
  find(chatId: unknown, messageId: unknown): TelegramStandInMessage | undefined;
  /** The last message the bot sent with an inline keyboard. */
  lastCard(): TelegramStandInMessage | undefined;
}

export function createStandInChats(): StandInChats {
  const chats = new Map<number, TelegramStandInChat>();
  const lastIds = new Map<number, number>();
  const kept = new Map<string, TelegramStandInMessage>();
  let card: TelegramStandInMessage | undefined;
  const keyOf = (chatId: unknown, messageId: unknown): string => `${String(chatId)}:${String(messageId)}`;

  return {
    chatOf(id) {
      const numeric = typeof id === 'number' ? id : Number(id);
      const known = chats.get(numeric);
      if (known !== undefined) return known;
      if (!Number.isInteger(numeric))
        return { id: 0, type: 'channel', username: String(id).replace(/^@/, '') };
      return { id: numeric, type: numeric < 0 ? 'supergroup' : 'private' };
    },
    remember(chat) {
      chats.set(chat.id, chat);
    },
    nextMessageId(chatId, forced) {
      const last = lastIds.get(chatId) ?? FIRST_MESSAGE_ID;
      const next = forced ?? last + 1;
      lastIds.set(chatId, Math.max(last, next));
      return next;
    },
    keep(message) {
      kept.set(keyOf(message.chat.id, message.message_id), message);
      if (message['reply_markup'] !== undefined) card = message;
    },
    find: (chatId, messageId) => kept.get(keyOf(Number(chatId), messageId)),
    lastCard: () => card,
  };
}
