// Updates in the shapes the Bot API documents (https://core.telegram.org/bots/api#update): a
// user's message, its edit and a click on an inline button, with the stand-in's increasing
// update_ids and its chats' message numbering.
import type { Clock } from '@parley/core';
import type {
  TelegramClickOptions,
  TelegramMessageOptions,
  TelegramStandInClickUpdate,
  TelegramStandInMessage,
  TelegramStandInMessageUpdate,
  TelegramStandInUpdates,
  TelegramStandInUser,
  TelegramStandInChat,
} from '../standin-update-types.js';
import type { StandInChats } from './standin-chats.js';

/** The update_id before the first one (Telegram's are large and increasing). */
const FIRST_UPDATE_ID = 900_000_000;

interface Button {
  readonly text?: unknown;
  readonly callback_data?: unknown;
}

export interface UpdateBuilderContext {
  readonly clock: Clock;
  readonly bot: TelegramStandInUser;
  readonly user: TelegramStandInUser;
  readonly chat: TelegramStandInChat;
  readonly chats: StandInChats;
}

export function createUpdateBuilder(context: UpdateBuilderContext): TelegramStandInUpdates {
  const { clock, chats } = context;
  let lastUpdateId = FIRST_UPDATE_ID;
  const nextUpdateId = (): number => ++lastUpdateId;
  const nowSeconds = (): number => Math.floor(clock.now() / 1000);

  return {
    nextUpdateId,
    message(text, options: TelegramMessageOptions = {}) {
      const chat = options.chat ?? context.chat;
      const message: TelegramStandInMessage = {
        message_id: chats.nextMessageId(chat.id, options.messageId),
        from: options.from ?? context.user,
        chat,
        date: options.date ?? nowSeconds(),
        text,
        ...(options.thread === undefined
          ? {}
          : { message_thread_id: options.thread, is_topic_message: true }),
        ...entitiesOf(text, options.entities),
      };
      return { update_id: nextUpdateId(), message } satisfies TelegramStandInMessageUpdate;
    },
    edit(original, text, options = {}) {
      const edited = { ...original.message, text, edit_date: options.date ?? nowSeconds() };
      return { update_id: nextUpdateId(), edited_message: edited };
    },
    click(button, options: TelegramClickOptions = {}) {
      const message = options.message ?? chats.lastCard() ?? placeholder(context, nowSeconds());
      const update_id = nextUpdateId();
      const update: TelegramStandInClickUpdate = {
        update_id,
        callback_query: {
          id: `4382${update_id}`,
          from: options.from ?? context.user,
          message,
          chat_instance: String(-8_271_652_351_423 - message.chat.id),
          data: callbackDataOf(message, button),
        },
      };
      return update;
    },
  };
}

/** The `callback_data` of the button labelled `button` (or carrying it) on the message, else `button`. */
function callbackDataOf(message: TelegramStandInMessage, button: string): string {
  const markup = message['reply_markup'] as { inline_keyboard?: readonly (readonly Button[])[] } | undefined;
  const buttons = (markup?.inline_keyboard ?? []).flat();
  const found = buttons.find((b) => b.text === button || b.callback_data === button);
  return typeof found?.callback_data === 'string' ? found.callback_data : button;
}

/** A message of the bot in the default chat, for a click when the bot has sent no card. */
function placeholder(context: UpdateBuilderContext, date: number): TelegramStandInMessage {
  const { chat } = context;
  return { message_id: context.chats.nextMessageId(chat.id), from: context.bot, chat, date, text: '…' };
}

/** The given entities, else the `bot_command` entity Telegram adds to a text starting with `/`. */
function entitiesOf(text: string, given: readonly object[] | undefined): { entities?: readonly object[] } {
  if (given !== undefined) return { entities: given };
  const command = /^\/\S+/.exec(text)?.[0];
  return command === undefined
    ? {}
    : { entities: [{ type: 'bot_command', offset: 0, length: command.length }] };
}
