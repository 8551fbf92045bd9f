import { createHash } from 'node:crypto';
import {
  type LoopbackAnswer,
  type LoopbackRequest,
  type LoopbackServer,
  startLoopbackServer,
} from '@parley/testing/loopback';
import type { FeishuSentMessage, FeishuStandInFault, FeishuStandInRequest } from '../standin-types.js';

const TOKEN_PATH = '/open-apis/auth/v3/tenant_access_token/internal';
const MESSAGES = /^\/open-apis\/im\/v1\/messages(?:\/([^/]+)\/reply)?$/;
const MESSAGE = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/;
const RECEIVE_ID_TYPES: readonly string[] = ['chat_id', 'open_id', 'user_id', 'union_id', 'email'];
const MSG_TYPES: readonly string[] = [
  'text',
  'post',
  'image',
  'file',
  'audio',
  'media',
  'sticker',
  'interactive',
  'share_chat',
  'share_user',
];

/** What the OpenAPI half of the stand-in needs to know about the app and its chats. */
export interface OpenApiApp {
  readonly appId: string;
  readonly appSecret: string;
  readonly tenantKey: string;
  readonly chatId: string;
  /** The chat of a message the stand-in delivered, when it knows it. */
  chatOf(messageId: string): string | undefined;
  now(): number;
}

/** The OpenAPI on loopback, with what the bot sent through it. */
export interface OpenApi {
  readonly server: LoopbackServer;
  readonly sent: readonly FeishuSentMessage[];
  readonly requests: readonly FeishuStandInRequest[];
  waitForSent(count: number): Promise<FeishuSentMessage>;
  failNext(faults: readonly FeishuStandInFault[]): void;
}

/** Feishu's refusal: an HTTP status and the `{ code, msg }` body it answers with. */
const refusal = (status: number, code: number, msg: string): LoopbackAnswer => ({
  status,
  json: { code, msg },
});

/** The tenant token of an app: the same for the same id and secret, so the SDK's token cache stays right. */
export const tenantTokenOf = (appId: string, appSecret: string): string =>
  `t-${createHash('sha256').update(`${appId}:${appSecret}`).digest('hex').slice(0, 40)}`;

/** Starts the OpenAPI stand-in: tenant_access_token/internal, im/v1/messages and its reply. */
export async function startOpenApi(app: OpenApiApp): Promise<OpenApi> {
  const sent: FeishuSentMessage[] = [];
  let waiters: { count: number; resolve: (message: FeishuSentMessage) => void }[] = [];
  const token = tenantTokenOf(app.appId, app.appSecret);

  function record(message: FeishuSentMessage): void {
    sent.push(message);
    const ready = waiters.filter((w) => sent.length >= w.count);
    waiters = waiters.filter((w) => sent.length < w.count);
    for (const w of ready) w.resolve(sent[w.count - 1] as FeishuSentMessage);
  }

  function send(req: LoopbackRequest): LoopbackAnswer {
    const repliedTo = req.params[0] ?? '';
    const body = (req.body ?? {}) as Record<string, unknown>;
    const receiveIdType = req.query['receive_id_type'];
    if (repliedTo === '' && (receiveIdType === undefined || !RECEIVE_ID_TYPES.includes(receiveIdType)))
      return refusal(400, 99992402, 'field validation failed: receive_id_type');
    const content = parseContent(body['content']);
    const msgType = body['msg_type'];
    const chatId =
      repliedTo === ''
        ? body['receive_id']
        : (app.chatOf(repliedTo) ?? sent.find((m) => m.messageId === repliedTo)?.chatId ?? app.chatId);
    if (
      typeof chatId !== 'string' ||
      chatId === '' ||
      typeof msgType !== 'string' ||
      !MSG_TYPES.includes(msgType) ||
      content === undefined
    )
      return refusal(400, 230001, 'Your request contains an invalid request parameter.');
    const messageId = `om_sent_${sent.length + 1}`;
    const createTime = String(app.now());
    record({
      messageId,
      chatId,
      msgType,
      content,
      ...shown(msgType, content),
      ...(repliedTo === '' ? {} : { replyTo: repliedTo }),
      inThread: body['reply_in_thread'] === true,
      updated: false,
      createdAt: app.now(),
      body,
    });
    return {
      json: {
        code: 0,
        msg: 'success',
        data: {
          message_id: messageId,
          ...(repliedTo === '' ? {} : { root_id: repliedTo, parent_id: repliedTo }),
          msg_type: msgType,
          create_time: createTime,
          update_time: createTime,
          deleted: false,
          updated: false,
          chat_id: chatId,
          sender: { id: app.appId, id_type: 'app_id', sender_type: 'app', tenant_key: app.tenantKey },
          body: { content: body['content'] },
        },
      },
    };
  }

  /** Updates a card the bot sent: the entry of `sent` shows the new content from now on. */
  function patch(req: LoopbackRequest): LoopbackAnswer {
    const index = sent.findIndex((m) => m.messageId === req.params[0]);
    const before = sent[index];
    const content = parseContent(((req.body ?? {}) as Record<string, unknown>)['content']);
    if (before === undefined || before.msgType !== 'interactive' || content === undefined)
      return refusal(400, 230001, 'Your request contains an invalid request parameter.');
    sent[index] = { ...before, content, ...shown('interactive', content), updated: true };
    return { json: { code: 0, msg: 'success', data: {} } };
  }

  const server = await startLoopbackServer({
    notFound: refusal(404, 404, '404 page not found'),
    guard(req) {
      if (!req.path.startsWith('/open-apis/im/')) return undefined;
      const authorization = req.headers['authorization'];
      if (authorization === undefined)
        return refusal(400, 99991661, 'Missing access token for authorization.');
      return authorization === `Bearer ${token}`
        ? undefined
        : refusal(400, 99991663, 'Invalid access token for authorization.');
    },
    routes: [
      {
        method: 'POST',
        path: TOKEN_PATH,
        answer(req) {
          const body = (req.body ?? {}) as Record<string, unknown>;
          return body['app_id'] === app.appId && body['app_secret'] === app.appSecret
            ? { json: { code: 0, msg: 'ok', tenant_access_token: token, expire: 7200 } }
            : refusal(400, 10014, 'app secret invalid');
        },
      },
      { method: 'POST', path: MESSAGES, answer: send },
      { method: 'PATCH', path: MESSAGE, answer: patch },
    ],
  });

  const requests: FeishuStandInRequest[] = [];
  return {
    server,
    sent,
    get requests() {
      for (const req of server.requests.slice(requests.length)) requests.push(requestOf(req));
      return requests;
    },
    waitForSent: (count) =>
      sent.length >= count
        ? Promise.resolve(sent[count - 1] as FeishuSentMessage)
        : new Promise((resolve) => waiters.push({ count, resolve })),
    failNext(faults) {
      server.failNext(
        MESSAGES,
        ...faults.map((fault) => ({
          status: fault.status ?? 200,
          json: fault.body,
          ...(fault.headers === undefined ? {} : { headers: fault.headers }),
        })),
      );
    },
  };
}

function requestOf(req: LoopbackRequest): FeishuStandInRequest {
  return {
    method: req.method,
    path: req.path,
    query: req.query,
    authorization: req.headers['authorization'],
    body: (req.body ?? {}) as Record<string, unknown>,
  };
}

function parseContent(content: unknown): unknown {
  if (typeof content !== 'string') return undefined;
  try {
    const parsed = JSON.parse(content) as unknown;
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

interface CardContent {
  elements?: {
    tag?: unknown;
    text?: { content?: unknown };
    actions?: { text?: { content?: unknown }; value?: unknown }[];
  }[];
}

/** The text a person reads in a message and the buttons they can click. */
function shown(msgType: string, content: unknown): Pick<FeishuSentMessage, 'text' | 'buttons'> {
  if (msgType === 'text') {
    const text = (content as { text?: unknown }).text;
    return { text: typeof text === 'string' ? text : '', buttons: [] };
  }
  if (msgType !== 'interactive') return { text: '', buttons: [] };
  const card = content as CardContent;
  const elements = Array.isArray(card.elements) ? card.elements : [];
  const texts = elements.map((e) => e.text?.content).filter((t): t is string => typeof t === 'string');
  const buttons = elements
    .flatMap((e) => (e.tag === 'action' && Array.isArray(e.actions) ? e.actions : []))
    .map((a) => ({ label: typeof a.text?.content === 'string' ? a.text.content : '', value: a.value }));
  return { text: texts.join('\n'), buttons };
}
