// The "Wiring Parley into an existing bot" guide: a ChannelAdapter for the Telegram Bot API,
// written against its documented `Update` objects and `sendMessage` method. Framework-free:
// `handleWebhook` takes the parsed JSON body of a webhook call and never throws.
// #region types
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type {
  ChannelAdapter,
  DeliverInbound,
  InboundInput,
  OutboundCard,
  OutboundMessage,
} from '@parley/bus';
import { type JsonValue, safeParseJson, validate } from '@parley/core';
import { z } from 'zod';

// The part of the Bot API's objects the adapter reads (https://core.telegram.org/bots/api#update).
// Unknown fields are ignored, so newer Bot API versions parse too.
const User = z.object({ id: z.number(), is_bot: z.boolean(), username: z.string().optional() });
const Chat = z.object({ id: z.number(), type: z.enum(['private', 'group', 'supergroup', 'channel']) });
const Message = z.object({
  message_id: z.number(),
  message_thread_id: z.number().optional(),
  is_topic_message: z.boolean().optional(),
  from: User.optional(), // absent for channel posts
  chat: Chat,
  date: z.number(), // Unix time, seconds; 0 for an inaccessible message
  edit_date: z.number().optional(),
  text: z.string().optional(),
});
const CallbackQuery = z.object({
  id: z.string(),
  from: User,
  message: Message.optional(), // absent for buttons sent in inline mode
  data: z.string().optional(),
});
const Update = z.object({
  update_id: z.number(),
  message: Message.optional(),
  edited_message: Message.optional(),
  callback_query: CallbackQuery.optional(),
});
export type TelegramUpdate = z.infer<typeof Update>;
type TelegramMessage = z.infer<typeof Message>;
// #endregion types

// #region inbound
/** What the bus gets for one update, or `undefined` for updates a chat bot does not handle. */
export function toInbound(
  update: TelegramUpdate,
  botUserId: number,
): Omit<InboundInput, 'channel'> | undefined {
  const query = update.callback_query;
  if (query !== undefined) {
    if (query.message === undefined) return undefined; // an inline-mode button: no chat to answer in
    return {
      ...addressOf(query.message),
      senderId: String(query.from.id),
      senderIsBot: query.from.is_bot,
      fromSelf: query.from.id === botUserId,
      kind: 'card_action',
      action: parseCallbackData(query.data),
      eventId: `callback:${query.id}`, // no `date` on a click: the bus stamps receivedAt
      raw: update,
    };
  }
  const edited = update.edited_message;
  const message = edited ?? update.message;
  if (message?.from === undefined) return undefined; // channel posts and service updates
  return {
    ...addressOf(message),
    senderId: String(message.from.id),
    senderIsBot: message.from.is_bot,
    fromSelf: message.from.id === botUserId,
    text: message.text ?? '',
    kind: edited === undefined ? 'message' : 'edit',
    // A redelivered update carries the same message, so the hygiene interceptor drops it; every
    // edit is an update of its own.
    eventId:
      edited === undefined ? `msg:${message.chat.id}:${message.message_id}` : `edit:${update.update_id}`,
    createdAt: ((edited === undefined ? undefined : message.edit_date) ?? message.date) * 1000,
    raw: update,
  };
}

function addressOf(message: TelegramMessage): { chatId: string; threadId?: string } {
  const chatId = String(message.chat.id);
  // Forum topics are threads; a reply in an ordinary group stays in the group's session.
  return message.is_topic_message === true && message.message_thread_id !== undefined
    ? { chatId, threadId: String(message.message_thread_id) }
    : { chatId };
}

/** Button values go out as JSON (see `toInlineKeyboard`); anything else is passed on as text. */
function parseCallbackData(data: string | undefined): JsonValue {
  if (data === undefined) return null;
  const parsed = safeParseJson(data, { maxBytes: 64, maxDepth: 4 });
  return parsed.ok ? parsed.value : data;
}
// #endregion inbound

// #region outbound
/** The `sendMessage` parameters for one outbound message (https://core.telegram.org/bots/api#sendmessage). */
export function toSendMessage(message: OutboundMessage): Record<string, JsonValue> {
  const text =
    message.text !== '' ? message.text : [message.card?.title, message.card?.body].filter(Boolean).join('\n');
  const keyboard = message.card === undefined ? [] : toInlineKeyboard(message.card);
  const replyTo = /^msg:(-?\d+):(\d+)$/.exec(message.replyTo ?? '');
  return {
    chat_id: Number(message.chatId), // Telegram ids fit in 52 bits: a JS number holds them exactly
    text: text.slice(0, 4096),
    ...(message.threadId === undefined ? {} : { message_thread_id: Number(message.threadId) }),
    ...(replyTo?.[1] === message.chatId ? { reply_parameters: { message_id: Number(replyTo[2]) } } : {}),
    ...(keyboard.length === 0 ? {} : { reply_markup: { inline_keyboard: [keyboard] } }),
  };
}

/** One row of buttons; a value whose JSON is over the Bot API's 64-byte `callback_data` is left out. */
export function toInlineKeyboard(card: OutboundCard): { text: string; callback_data: string }[] {
  return card.buttons
    .map((button) => ({ text: button.label, callback_data: JSON.stringify(button.value) }))
    .filter((button) => new TextEncoder().encode(button.callback_data).length <= 64);
}
// #endregion outbound

// #region adapter
/** Calls a Bot API method; rejects when Telegram answers `ok: false`. */
export interface TelegramApi {
  call(method: 'sendMessage' | 'answerCallbackQuery', params: Record<string, JsonValue>): Promise<unknown>;
}

export function createTelegramApi(token: string, fetchImpl: typeof fetch = fetch): TelegramApi {
  return {
    async call(method, params) {
      const response = await fetchImpl(`https://api.telegram.org/bot${token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
      });
      const body = (await response.json()) as { ok?: boolean; result?: unknown; description?: string };
      if (body.ok !== true) throw new Error(`Telegram ${method}: ${body.description ?? response.status}`);
      return body.result;
    },
  };
}

export interface TelegramBotOptions {
  readonly api: TelegramApi;
  /** The bot's own user id (the number before ':' in its token), to recognise its echoes. */
  readonly botUserId: number;
  /** The `secret_token` given to setWebhook; requests without it are refused. */
  readonly secretToken?: string;
  /** The channel name in session keys; `telegram` by default. */
  readonly channel?: string;
  /** Told about failures that cannot be answered to anyone (a failed answerCallbackQuery). */
  readonly onError?: (error: unknown) => void;
}

export interface WebhookRequest {
  readonly body: unknown;
  /** The `X-Telegram-Bot-Api-Secret-Token` header. */
  readonly secretToken?: string | undefined;
}

/** 200 tells Telegram the update is handled; any other status makes it deliver the update again. */
export interface WebhookResponse {
  readonly status: 200 | 401 | 503;
  readonly outcome: string;
}

export interface TelegramBot extends ChannelAdapter {
  handleWebhook(request: WebhookRequest): Promise<WebhookResponse>;
}

export function createTelegramBot(options: TelegramBotOptions): TelegramBot {
  const { api, botUserId } = options;
  let deliver: DeliverInbound | undefined;
  return {
    channel: options.channel ?? 'telegram',
    async send(message) {
      await api.call('sendMessage', toSendMessage(message)); // a rejection becomes a send_failed result
    },
    connect(d) {
      deliver = d;
      return () => {
        deliver = undefined;
      };
    },
    async handleWebhook({ body, secretToken }) {
      if (options.secretToken !== undefined && secretToken !== options.secretToken) {
        return { status: 401, outcome: 'bad_secret' };
      }
      if (deliver === undefined) return { status: 503, outcome: 'not_attached' };
      const update = validate(Update, body);
      if (!update.ok) return { status: 200, outcome: 'malformed' }; // delivering it again would not help
      const input = toInbound(update.value, botUserId);
      if (input === undefined) return { status: 200, outcome: 'unsupported' };
      const result = await deliver(input); // the bus never throws: refusals are results
      const query = update.value.callback_query;
      if (query !== undefined) {
        // Stops the spinner on the clicked button; a failure here changes nothing else.
        await api.call('answerCallbackQuery', { callback_query_id: query.id }).catch((error: unknown) => {
          options.onError?.(error);
        });
      }
      if (result.status === 'rejected' && (result.code === 'queue_full' || result.code === 'closed')) {
        return { status: 503, outcome: result.code }; // ask Telegram to deliver it again later
      }
      return { status: 200, outcome: result.status === 'rejected' ? result.code : result.status };
    },
  };
}
// #endregion adapter

// #region http
/** The webhook endpoint on plain node:http; any framework does the same with its request body. */
export function createWebhookListener(
  bot: TelegramBot,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1024 * 1024) chunks.push(chunk);
    });
    request.on('end', () => {
      const parsed = safeParseJson(Buffer.concat(chunks).toString('utf8'));
      const header = request.headers['x-telegram-bot-api-secret-token'];
      void bot
        .handleWebhook({
          body: parsed.ok ? parsed.value : undefined, // not JSON: answered as malformed
          secretToken: typeof header === 'string' ? header : undefined,
        })
        .then(({ status, outcome }) => {
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ outcome }));
        });
    });
  };
}
// #endregion http

// #region main
import { startBot } from './getting-started.js';

export interface TelegramMainOptions {
  /** The bot token from @BotFather; `TELEGRAM_BOT_TOKEN` by default. */
  readonly token?: string;
  /** `TELEGRAM_WEBHOOK_SECRET` by default. */
  readonly secretToken?: string;
  /** 8080 by default; 0 picks a free port. */
  readonly port?: number;
  readonly fetch?: typeof fetch;
  readonly clock?: Parameters<typeof startBot>[0]['clock'];
}

/** The getting-started bot on Telegram: listens for webhook calls until `close()`. */
export async function main(
  options: TelegramMainOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const token = options.token ?? process.env.TELEGRAM_BOT_TOKEN;
  if (token === undefined || !/^\d+:/.test(token))
    throw new Error('Set TELEGRAM_BOT_TOKEN to the token of your bot');
  const secretToken = options.secretToken ?? process.env.TELEGRAM_WEBHOOK_SECRET;
  const telegram = createTelegramBot({
    api: createTelegramApi(token, options.fetch),
    botUserId: Number(token.split(':')[0]),
    ...(secretToken === undefined ? {} : { secretToken }),
  });
  const bot = await startBot({
    adapter: telegram,
    orders: { deleteCancelled: async () => 0 }, // your database here
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const server = createServer(createWebhookListener(telegram));
  await new Promise<void>((resolve) => server.listen(options.port ?? 8080, resolve));
  const { port } = server.address() as AddressInfo; // listening on a TCP port, so an AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await bot.close();
    },
  };
}
// #endregion main

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await main();
  console.log(`Webhook listening on ${url}; point setWebhook at its public address.`);
}
