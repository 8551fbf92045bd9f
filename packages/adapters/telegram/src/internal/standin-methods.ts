// The Bot API methods the stand-in answers besides getUpdates, in the documented `{ ok, result }`
// shape or Telegram's refusal (`{ ok: false, error_code, description }`) for what Telegram refuses:
// https://core.telegram.org/bots/api#available-methods
import type { Clock } from '@parley/core';
import type { TelegramStandInFailure } from '../standin-types.js';
import type { TelegramStandInMessage, TelegramStandInUser } from '../standin-update-types.js';
import type { StandInChats } from './standin-chats.js';

/** Telegram's limit on a message's text, in characters. */
const MAX_TEXT_LENGTH = 4096;

export type MethodAnswer = { readonly ok: true; readonly result: unknown } | TelegramStandInFailure;

type Params = Readonly<Record<string, unknown>>;
type Reshape = (message: Record<string, unknown>) => Record<string, unknown>;

export interface StandInWebhook {
  readonly url: string;
  readonly secretToken?: string;
}

export interface MethodContext {
  readonly clock: Clock;
  readonly bot: TelegramStandInUser;
  readonly chats: StandInChats;
  /** Callback query ids delivered to the bot (the ones it may answer). */
  readonly queries: ReadonlySet<string>;
  webhook: StandInWebhook | undefined;
  pendingCount(): number;
  dropPending(): void;
  /** Reshapes the next sent Message, when a test asked to. */
  takeReshape(): Reshape | undefined;
}

export type Method = (params: Params, context: MethodContext) => MethodAnswer;

const ok = (result: unknown): MethodAnswer => ({ ok: true, result });
const badRequest = (what: string): MethodAnswer => ({ error_code: 400, description: `Bad Request: ${what}` });

/** The methods (getUpdates aside) by name; any other name gets Telegram's 404. */
export const METHODS: Readonly<Record<string, Method>> = {
  getMe: (_params, context) => ok(context.bot),
  setWebhook(params, context) {
    const url = params['url'];
    if (typeof url !== 'string' || url === '') {
      context.webhook = undefined;
      return ok(true);
    }
    const secret = params['secret_token'];
    context.webhook = { url, ...(typeof secret === 'string' ? { secretToken: secret } : {}) };
    return ok(true);
  },
  deleteWebhook(params, context) {
    context.webhook = undefined;
    if (params['drop_pending_updates'] === true) context.dropPending();
    return ok(true);
  },
  getWebhookInfo: (_params, context) =>
    ok({
      url: context.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: context.pendingCount(),
    }),
  sendMessage(params, context) {
    const chatId = params['chat_id'];
    const text = params['text'];
    if (chatId === undefined || chatId === '') return badRequest('chat_id is empty');
    if (typeof text !== 'string' || text.trim() === '') return badRequest('message text is empty');
    if (text.length > MAX_TEXT_LENGTH) return badRequest('message is too long');
    const chat = context.chats.chatOf(chatId);
    const thread = params['message_thread_id'];
    const markup = params['reply_markup'];
    const message: TelegramStandInMessage = {
      message_id: context.chats.nextMessageId(chat.id),
      from: context.bot,
      chat,
      date: Math.floor(context.clock.now() / 1000),
      text,
      ...(typeof thread === 'number' ? { message_thread_id: thread, is_topic_message: true } : {}),
      ...(markup === undefined ? {} : { reply_markup: markup }),
    };
    context.chats.keep(message);
    const reshape = context.takeReshape();
    return ok(reshape === undefined ? message : reshape({ ...message }));
  },
  editMessageText: (params, context) => edit(params, context, { text: params['text'] }),
  editMessageReplyMarkup: (params, context) => edit(params, context, {}),
  answerCallbackQuery(params, context) {
    const id = params['callback_query_id'];
    if (typeof id !== 'string' || !context.queries.has(id))
      return badRequest('query is too old and response timeout expired or query ID is invalid');
    return ok(true);
  },
};

/** editMessageText / editMessageReplyMarkup of a message the bot sent. */
function edit(params: Params, context: MethodContext, change: { readonly text?: unknown }): MethodAnswer {
  const original = context.chats.find(params['chat_id'], params['message_id']);
  if (original === undefined) return badRequest('message to edit not found');
  const text = 'text' in change ? change.text : original.text;
  if (typeof text !== 'string' || text.trim() === '') return badRequest('message text is empty');
  if (text.length > MAX_TEXT_LENGTH) return badRequest('message is too long');
  const markup = params['reply_markup'];
  const { reply_markup: _previous, ...rest } = original;
  const edited: TelegramStandInMessage = {
    ...rest,
    text,
    edit_date: Math.floor(context.clock.now() / 1000),
    ...(markup === undefined ? {} : { reply_markup: markup }),
  };
  if (text === original.text && JSON.stringify(markup) === JSON.stringify(original['reply_markup']))
    return badRequest(
      'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    );
  context.chats.keep(edited);
  return ok(edited);
}
