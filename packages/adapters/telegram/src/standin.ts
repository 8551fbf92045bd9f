import { systemClock } from '@parley/core';
import { type LoopbackAnswer, startLoopbackServer } from '@parley/testing/loopback';
import { type AnswerState, answerCall, NOT_FOUND } from './internal/standin-answer.js';
import { createStandInCallLog } from './internal/standin-calls.js';
import { createStandInChats } from './internal/standin-chats.js';
import { type DeliverState, deliverUpdate } from './internal/standin-deliver.js';
import type { MethodContext } from './internal/standin-methods.js';
import { createStandInPolling } from './internal/standin-polling.js';
import { createUpdateBuilder } from './internal/standin-updates.js';
import type { TelegramDelivery, TelegramStandIn, TelegramStandInOptions } from './standin-types.js';
import type { TelegramStandInUpdate, TelegramStandInUser } from './standin-update-types.js';

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
  const log = createStandInCallLog();
  const confirmations = new Set<() => void>();
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
  const answering: AnswerState = {
    token,
    context,
    polling,
    log,
    sent: [],
    failures,
    polls: new Set(),
    sendHook: () => sendHook,
  };
  const delivering: DeliverState = {
    isClosed: () => closed,
    context,
    chats,
    queries,
    polling,
    confirmations,
  };
  const deliver = <TUpdate extends TelegramStandInUpdate>(
    update: TUpdate,
  ): Promise<TelegramDelivery<TUpdate>> => deliverUpdate(delivering, update);

  const server = await startLoopbackServer({
    notFound: NOT_FOUND,
    routes: [
      {
        method: 'POST',
        path: /^\/bot([^/]*)\/([^/]+)$/,
        answer: (req, c) => answerCall(answering, req, c.onClose),
      },
    ],
  });

  return {
    url: server.url,
    token,
    bot,
    user,
    chat,
    sent: answering.sent,
    updates,
    calls: log.callsOf,
    waitFor: (method, count = 1) => log.waitFor(method, count, closed),
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
      await Promise.all(answering.polls); // the released poll's answer reaches the bot before the server stops
      for (const settle of [...confirmations]) settle();
      log.rejectWaiters();
      await server.close();
    },
  };
}
