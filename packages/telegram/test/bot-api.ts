// A stand-in of the Telegram Bot API on loopback for the real grammY client: it answers the
// methods grammY calls (getMe, deleteWebhook, getUpdates with long polling, sendMessage,
// answerCallbackQuery…) in the documented `{ ok, result }` / `{ ok: false, error_code,
// description, parameters }` shapes, records every call, and lets a test queue updates and
// script failures. Built on @parley/testing's loopback server (routes, recording, scripted answers).
// https://core.telegram.org/bots/api#making-requests
import type { Clock } from '@parley/core';
import { type LoopbackAnswer, type LoopbackRequest, startLoopbackServer } from '@parley/testing/loopback';

export const TOKEN = '8000000001:AAH-test-token';
export const BOT = {
  id: 8_000_000_001,
  is_bot: true,
  first_name: 'Shop bot',
  username: 'shop_bot',
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
  can_manage_bots: false,
  supports_join_request_queries: false,
} as const;

export interface ApiCall {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface Failure {
  readonly error_code: number;
  readonly description: string;
  readonly parameters?: { readonly retry_after?: number; readonly migrate_to_chat_id?: number };
}

export interface BotApiStandIn {
  /** The value for grammY's `client.apiRoot`. */
  readonly apiRoot: string;
  /** Calls of one method, in order. */
  callsOf(method: string): ApiCall[];
  /** Resolves once `count` calls of `method` have arrived in total. */
  waitFor(method: string, count?: number): Promise<ApiCall>;
  /** Queues updates for getUpdates (answering a waiting long poll at once). */
  push(...updates: object[]): void;
  /** The next call of `method` is refused with this failure. */
  failNext(method: string, failure: Failure): void;
  /** The next call of `method` gets its connection destroyed (grammY sees an HttpError). */
  dropNext(method: string): void;
  /** Resolves once `count` long polls (getUpdates with a timeout) have been held in total; to the count. */
  held(count?: number): Promise<number>;
  /**
   * Runs before `sendMessage` answers, e.g. to move the clock while the message is "in flight"; a
   * returned promise holds the answer back until it settles (the message is shown, the bot not told).
   */
  onSend(hook: (() => void | Promise<void>) | undefined): void;
  /** Reshapes the next `sendMessage` result (the Message object), e.g. to drop a field. */
  reshapeNextSent(reshape: (message: Record<string, unknown>) => Record<string, unknown>): void;
  close(): Promise<void>;
}

export async function startBotApi(clock: Clock): Promise<BotApiStandIn> {
  /** Updates not yet confirmed by a later offset, and whether a getUpdates answer carried them. */
  let queue: { update: object; sent: boolean }[] = [];
  let poll: { readonly offset: number; readonly respond: (updates: readonly object[]) => void } | undefined;
  let messageId = 100;
  let sendHook: (() => void | Promise<void>) | undefined;
  let reshapes: ((message: Record<string, unknown>) => Record<string, unknown>)[] = [];
  let heldCount = 0;
  const heldWaiters: { count: number; resolve: (count: number) => void }[] = [];
  const ok = (result: unknown): LoopbackAnswer => ({ json: { ok: true, result } });
  const pathOf = (method: string): string => `/bot${TOKEN}/${method}`;
  const paramsOf = (req: LoopbackRequest): Record<string, unknown> =>
    (req.body ?? {}) as Record<string, unknown>;

  /** Forgets what an offset confirms (sent updates below it), then returns what is left, marked sent. */
  function pending(offset: number): object[] {
    queue = queue.filter((e) => !e.sent || (e.update as { update_id: number }).update_id >= offset);
    for (const entry of queue) entry.sent = true;
    return queue.map((e) => e.update);
  }

  const server = await startLoopbackServer({
    guard: (req) =>
      req.path.startsWith(`/bot${TOKEN}/`)
        ? undefined
        : { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } },
    notFound: {
      status: 404,
      json: { ok: false, error_code: 404, description: 'Not Found: method not found' },
    },
    routes: [
      { path: pathOf('getMe'), answer: () => ok(BOT) },
      {
        path: /^\/bot[^/]+\/(deleteWebhook|answerCallbackQuery|editMessageReplyMarkup)$/,
        answer: () => ok(true),
      },
      {
        path: pathOf('getUpdates'),
        answer: (req, connection) => {
          const params = paramsOf(req);
          const offset = typeof params['offset'] === 'number' ? params['offset'] : 0;
          const timeout = typeof params['timeout'] === 'number' ? params['timeout'] : 0;
          const ready = pending(offset);
          if (ready.length > 0 || timeout === 0) return ok(ready);
          heldCount++;
          for (const waiter of [...heldWaiters]) {
            if (heldCount >= waiter.count) {
              heldWaiters.splice(heldWaiters.indexOf(waiter), 1);
              waiter.resolve(heldCount);
            }
          }
          return new Promise((resolve) => {
            poll = { offset, respond: (updates) => resolve(ok(updates)) };
            connection.onClose(() => {
              if (poll?.offset === offset) poll = undefined; // grammY aborted the long poll
            });
          });
        },
      },
      {
        path: pathOf('sendMessage'),
        answer: async (req) => {
          await sendHook?.();
          messageId++;
          const params = paramsOf(req);
          const chatId = params['chat_id'];
          const message = {
            message_id: messageId,
            from: BOT,
            chat: { id: chatId, type: typeof chatId === 'number' && chatId < 0 ? 'supergroup' : 'private' },
            date: Math.floor(clock.now() / 1000),
            text: params['text'],
            ...(params['reply_markup'] === undefined ? {} : { reply_markup: params['reply_markup'] }),
          };
          const reshape = reshapes.shift();
          return ok(reshape === undefined ? message : reshape(message));
        },
      },
    ],
  });
  return {
    apiRoot: server.url,
    callsOf: (method) => server.requestsTo(pathOf(method)).map((req) => ({ method, params: paramsOf(req) })),
    async waitFor(method, count = 1) {
      return { method, params: paramsOf(await server.waitFor(pathOf(method), count)) };
    },
    held(count = 1) {
      if (heldCount >= count) return Promise.resolve(heldCount);
      return new Promise((resolve) => heldWaiters.push({ count, resolve }));
    },
    push(...updates) {
      // Telegram sends an update again until an offset confirms it; a test pushes a redelivery.
      queue.push(...updates.map((update) => ({ update, sent: false })));
      const waiting = poll;
      if (waiting === undefined) return;
      poll = undefined;
      waiting.respond(pending(waiting.offset));
    },
    failNext(method, failure) {
      server.failNext(pathOf(method), { status: failure.error_code, json: { ok: false, ...failure } });
    },
    dropNext(method) {
      server.failNext(pathOf(method), { drop: true });
    },
    onSend(hook) {
      sendHook = hook;
    },
    reshapeNextSent(reshape) {
      reshapes = [...reshapes, reshape];
    },
    close: () => server.close(),
  };
}
