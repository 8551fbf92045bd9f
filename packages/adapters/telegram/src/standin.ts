import { systemClock } from '@parley/core';
import { type LoopbackAnswer, type LoopbackRequest, startLoopbackServer } from '@parley/testing/loopback';
import { TelegramAdapterError } from './errors.js';
import { createStandInChats } from './internal/standin-chats.js';
import { METHODS, type MethodAnswer, type MethodContext } from './internal/standin-methods.js';
import { createStandInPolling, getUpdatesParams } from './internal/standin-polling.js';
import { createUpdateBuilder } from './internal/standin-updates.js';
import { postToWebhook } from './internal/standin-webhook.js';
import type {
  TelegramDelivery,
  TelegramStandIn,
  TelegramStandInCall,
  TelegramStandInOptions,
} from './standin-types.js';
import type {
  TelegramStandInChat,
  TelegramStandInUpdate,
  TelegramStandInUser,
} from './standin-update-types.js';

/** The bot `getMe` answers with unless `options.bot` says otherwise. */
const DEFAULT_BOT: TelegramStandInUser = {
  id: 8_000_000_001,
  is_bot: true,
  first_name: 'Shop bot',
  username: 'shop_bot',
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
};
const DEFAULT_USER: TelegramStandInUser = { id: 7_001, is_bot: false, first_name: 'Ada', username: 'ada' };
/** The methods whose successful calls are what the bot sent (`sent`). */
const SENDING = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup', 'answerCallbackQuery']);
const NOT_FOUND: LoopbackAnswer = {
  status: 404,
  json: { ok: false, error_code: 404, description: 'Not Found: method not found' },
};
const CONFLICT: LoopbackAnswer = {
  status: 409,
  json: {
    ok: false,
    error_code: 409,
    description:
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
  },
};

/**
 * Starts a stand-in of the Telegram Bot API on 127.0.0.1, for testing a grammY bot offline: set the
 * bot's `client.apiRoot` to its `url`. It answers `getMe`, long-polled `getUpdates` (offsets
 * confirm updates; a poll ends when an update arrives, its `timeout` passes on the `clock`, or the
 * stand-in closes), `setWebhook` / `deleteWebhook` / `getWebhookInfo`, `sendMessage`,
 * `editMessageText`, `editMessageReplyMarkup` and `answerCallbackQuery` in the documented shapes,
 * and refuses what Telegram refuses (a wrong token 401, an unknown method 404, `getUpdates` while a
 * webhook is set 409, an empty text or an unknown message or callback query 400). `message`,
 * `edit` and `click` deliver a user's update by webhook when the bot set one (with its secret
 * token), else to `getUpdates`; `sent` records what the bot sent.
 *
 * @example
 * ```ts
 * import { createTelegramStandIn } from '@parley/telegram/testing';
 * import { Bot } from 'grammy';
 *
 * const telegram = await createTelegramStandIn();
 * const bot = new Bot(telegram.token, { client: { apiRoot: telegram.url } });
 * bot.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
 * const running = bot.start();
 * await telegram.message('hello');
 * console.log(telegram.sent.map((call) => call.params['text'])); // [ 'echo: hello' ]
 * await bot.stop();
 * await running;
 * await telegram.close();
 * ```
 */
export async function createTelegramStandIn(options: TelegramStandInOptions = {}): Promise<TelegramStandIn> {
  const clock = options.clock ?? systemClock;
  const bot = options.bot ?? DEFAULT_BOT;
  const token = options.token ?? `${bot.id}:stand-in-token`;
  const user = options.user ?? DEFAULT_USER;
  const chats = createStandInChats();
  const polling = createStandInPolling(clock);
  const queries = new Set<string>();
  const sent: TelegramStandInCall[] = [];
  const calls: TelegramStandInCall[] = [];
  const waiters: {
    method: string;
    count: number;
    resolve(call: TelegramStandInCall): void;
    reject(e: Error): void;
  }[] = [];
  const confirmations = new Set<() => void>();
  /** Open getUpdates requests, settled once their answer is written (close waits for them). */
  const polls = new Set<Promise<void>>();
  const failures: { method: string; answer: LoopbackAnswer }[] = [];
  let reshapes: ((message: Record<string, unknown>) => Record<string, unknown>)[] = [];
  let sendHook: (() => void | Promise<void>) | undefined;
  let closed = false;
  const context: MethodContext = {
    clock,
    bot,
    chats,
    queries,
    webhook: undefined,
    pendingCount: () => polling.pendingCount(),
    dropPending: () => polling.drop(),
    takeReshape: () => reshapes.shift(),
  };
  const chat = options.chat ?? { id: user.id, type: 'private', first_name: user.first_name };
  chats.remember(chat);
  const updates = createUpdateBuilder({ clock, bot, user, chat, chats });
  const callsOf = (method: string): TelegramStandInCall[] => calls.filter((call) => call.method === method);

  function record(call: TelegramStandInCall): void {
    calls.push(call);
    for (const waiter of [...waiters]) {
      const seen = callsOf(waiter.method);
      if (waiter.method !== call.method || seen.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(seen[waiter.count - 1] as TelegramStandInCall);
    }
  }

  async function answer(
    req: LoopbackRequest,
    onClose: (listener: () => void) => void,
  ): Promise<LoopbackAnswer> {
    const [given, method = ''] = req.params;
    const params = isRecord(req.body) ? req.body : {};
    const call: TelegramStandInCall = { method, params };
    if (given !== token)
      return { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } };
    record(call);
    const failure = failures.findIndex((f) => f.method === method);
    if (failure >= 0) return (failures.splice(failure, 1)[0] as { answer: LoopbackAnswer }).answer;
    if (method === 'getUpdates') {
      if (context.webhook !== undefined) return CONFLICT;
      const answered = new Promise<void>((resolve) => onClose(resolve));
      polls.add(answered);
      void answered.then(() => polls.delete(answered));
      return { json: { ok: true, result: await polling.getUpdates(getUpdatesParams(params), onClose) } };
    }
    const run = METHODS[method];
    if (run === undefined) return NOT_FOUND;
    const result: MethodAnswer = run(params, context); // in the same turn as record: a waiter sees it done
    if (!('ok' in result)) return { status: result.error_code, json: { ok: false, ...result } };
    if (SENDING.has(method)) sent.push(call);
    if (method === 'sendMessage') await sendHook?.(); // the message is in the chat; the bot is told later
    return { json: result };
  }

  const server = await startLoopbackServer({
    notFound: NOT_FOUND,
    routes: [{ method: 'POST', path: /^\/bot([^/]*)\/([^/]+)$/, answer: (req, c) => answer(req, c.onClose) }],
  });

  function deliver<TUpdate extends TelegramStandInUpdate>(
    update: TUpdate,
  ): Promise<TelegramDelivery<TUpdate>> {
    if (closed) return Promise.resolve(closedDelivery(update));
    remember(update);
    if (context.webhook !== undefined) return postToWebhook(context.webhook, update);
    return new Promise((resolve) => {
      const confirm = (delivery: TelegramDelivery<TUpdate>): void => {
        confirmations.delete(settleClosed);
        resolve(delivery);
      };
      const settleClosed = (): void => confirm(closedDelivery(update));
      confirmations.add(settleClosed);
      polling.enqueue(update, () => confirm({ ok: true, update }));
    });
  }

  /** Remembers the chats and callback queries an update carries. */
  function remember(update: TelegramStandInUpdate): void {
    for (const key of ['message', 'edited_message'] as const) {
      const message = update[key];
      if (isRecord(message) && isRecord(message['chat']) && typeof message['chat']['id'] === 'number')
        chats.remember(message['chat'] as unknown as TelegramStandInChat); // a chat with a numeric id
    }
    const query = update['callback_query'];
    if (isRecord(query) && typeof query['id'] === 'string') queries.add(query['id']);
  }

  return {
    url: server.url,
    token,
    bot,
    user,
    chat,
    sent,
    updates,
    calls: callsOf,
    waitFor(method, count = 1) {
      const seen = callsOf(method);
      if (seen.length >= count) return Promise.resolve(seen[count - 1] as TelegramStandInCall);
      if (closed) return Promise.reject(closedError(method));
      return new Promise((resolve, reject) => waiters.push({ method, count, resolve, reject }));
    },
    message: (text, messageOptions) => deliver(updates.message(text, messageOptions)),
    edit: (original, text, editOptions) => deliver(updates.edit(original, text, editOptions)),
    click: (button, clickOptions) => deliver(updates.click(button, clickOptions)),
    deliver,
    failNext(method, failure) {
      failures.push({ method, answer: { status: failure.error_code, json: { ok: false, ...failure } } });
    },
    dropNext(method) {
      failures.push({ method, answer: { drop: true } });
    },
    onSend(hook) {
      sendHook = hook;
    },
    reshapeNextSent(reshape) {
      reshapes = [...reshapes, reshape];
    },
    async close() {
      if (closed) return;
      closed = true;
      polling.release();
      await Promise.all(polls); // the released poll's answer reaches the bot before the server stops
      for (const settle of [...confirmations]) settle();
      for (const waiter of waiters.splice(0)) waiter.reject(closedError(waiter.method));
      await server.close();
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function closedDelivery<TUpdate extends TelegramStandInUpdate>(update: TUpdate): TelegramDelivery<TUpdate> {
  return { ok: false, code: 'closed', message: 'The Telegram stand-in is closed', update };
}

function closedError(method: string): TelegramAdapterError {
  return new TelegramAdapterError('closed', `The Telegram stand-in closed before the bot called ${method}`, {
    details: { method },
  });
}
