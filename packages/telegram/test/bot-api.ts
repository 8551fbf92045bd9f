// A stand-in of the Telegram Bot API on loopback for the real grammY client: it answers the
// methods grammY calls (getMe, deleteWebhook, getUpdates with long polling, sendMessage,
// answerCallbackQuery…) in the documented `{ ok, result }` / `{ ok: false, error_code,
// description, parameters }` shapes, records every call, and lets a test queue updates and
// script failures. https://core.telegram.org/bots/api#making-requests
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@parley/core';

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

interface Poll {
  readonly offset: number;
  readonly respond: (updates: readonly object[]) => void;
}

export interface BotApiStandIn {
  /** The value for grammY's `client.apiRoot`. */
  readonly apiRoot: string;
  readonly calls: readonly ApiCall[];
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
  /** Runs before `sendMessage` answers, e.g. to move the clock while the message is "in flight". */
  onSend(hook: (() => void) | undefined): void;
  close(): Promise<void>;
}

export async function startBotApi(clock: Clock): Promise<BotApiStandIn> {
  const calls: ApiCall[] = [];
  const waiters: { method: string; count: number; resolve: (call: ApiCall) => void }[] = [];
  const failures = new Map<string, Failure[]>();
  const drops = new Map<string, number>();
  /** Updates not yet confirmed by a later offset, and whether a getUpdates answer carried them. */
  let queue: { update: object; sent: boolean }[] = [];
  let poll: Poll | undefined;
  let messageId = 100;
  let sendHook: (() => void) | undefined;
  let heldCount = 0;
  const heldWaiters: { count: number; resolve: (count: number) => void }[] = [];

  /** Answers a request; true, so a handler can `return json(…)`. */
  const json = (res: ServerResponse, status: number, body: unknown): true => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    return true;
  };

  /** Forgets what an offset confirms (sent updates below it), then returns what is left, marked sent. */
  function pending(offset: number): object[] {
    queue = queue.filter((e) => !e.sent || (e.update as { update_id: number }).update_id >= offset);
    for (const entry of queue) entry.sent = true;
    return queue.map((e) => e.update);
  }

  function answer(
    method: string,
    params: Record<string, unknown>,
    res: ServerResponse,
    req: IncomingMessage,
  ): boolean {
    const failure = failures.get(method)?.shift();
    if (failure !== undefined) return json(res, failure.error_code, { ok: false, ...failure });
    const drop = drops.get(method) ?? 0;
    if (drop > 0) {
      drops.set(method, drop - 1);
      req.socket.destroy();
      return false;
    }
    switch (method) {
      case 'getMe':
        return json(res, 200, { ok: true, result: BOT });
      case 'deleteWebhook':
      case 'answerCallbackQuery':
      case 'editMessageReplyMarkup':
        return json(res, 200, { ok: true, result: true });
      case 'getUpdates': {
        const offset = typeof params['offset'] === 'number' ? params['offset'] : 0;
        const timeout = typeof params['timeout'] === 'number' ? params['timeout'] : 0;
        const ready = pending(offset);
        if (ready.length > 0 || timeout === 0) return json(res, 200, { ok: true, result: ready });
        poll = { offset, respond: (updates) => json(res, 200, { ok: true, result: updates }) };
        heldCount++;
        for (const waiter of [...heldWaiters]) {
          if (heldCount >= waiter.count) {
            heldWaiters.splice(heldWaiters.indexOf(waiter), 1);
            waiter.resolve(heldCount);
          }
        }
        res.on('close', () => {
          if (poll?.offset === offset) poll = undefined; // grammY aborted the long poll
        });
        return false;
      }
      case 'sendMessage': {
        sendHook?.();
        messageId++;
        const chatId = params['chat_id'];
        return json(res, 200, {
          ok: true,
          result: {
            message_id: messageId,
            from: BOT,
            chat: { id: chatId, type: typeof chatId === 'number' && chatId < 0 ? 'supergroup' : 'private' },
            date: Math.floor(clock.now() / 1000),
            text: params['text'],
            ...(params['reply_markup'] === undefined ? {} : { reply_markup: params['reply_markup'] }),
          },
        });
      }
      default:
        return json(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (match === null || match[1] !== TOKEN) {
        return json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      }
      const method = match[2] as string;
      const text = Buffer.concat(chunks).toString('utf8');
      const params = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      const call = { method, params };
      calls.push(call);
      for (const waiter of [...waiters]) {
        if (waiter.method === method && calls.filter((c) => c.method === method).length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(call);
        }
      }
      answer(method, params, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // a TCP server: an AddressInfo

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    callsOf: (method) => calls.filter((call) => call.method === method),
    waitFor(method, count = 1) {
      const seen = calls.filter((c) => c.method === method);
      if (seen.length >= count) return Promise.resolve(seen[count - 1] as ApiCall);
      return new Promise((resolve) => waiters.push({ method, count, resolve }));
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
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    dropNext(method) {
      drops.set(method, (drops.get(method) ?? 0) + 1);
    },
    onSend(hook) {
      sendHook = hook;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
