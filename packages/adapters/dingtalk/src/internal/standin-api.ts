import { generateId } from '@parley/core';
import {
  type LoopbackAnswer,
  type LoopbackRequest,
  type LoopbackServer,
  startLoopbackServer,
} from '@parley/testing/loopback';
import { type LoopbackSocket, startLoopbackSocket } from '@parley/testing/loopback-ws';
import type { DingTalkSentMessage, DingTalkStandInFault, DingTalkStandInRequest } from '../standin-types.js';

export const GATEWAY_PATH = '/v1.0/gateway/connections/open';
const TOKEN_PATH = '/v1.0/oauth2/accessToken';
/** Every path but the gateway's and the token's: the OpenAPI sends. */
const SENDS = /^(?!\/v1\.0\/(?:gateway\/connections\/open|oauth2\/accessToken)$)/;

/** The HTTP side of the stand-in (gateway, token, OpenAPI sends) and its stream socket. */
export interface StandInApi {
  readonly server: LoopbackServer;
  readonly socket: LoopbackSocket;
  readonly accessToken: string;
  readonly sent: readonly DingTalkSentMessage[];
  requestsTo(path: string | RegExp): DingTalkStandInRequest[];
  waitForSent(count: number): Promise<DingTalkSentMessage>;
  failNext(faults: readonly DingTalkStandInFault[]): void;
  failToken(fault: DingTalkStandInFault | undefined): void;
}

const answerOf = (fault: DingTalkStandInFault): LoopbackAnswer =>
  fault.raw === true
    ? { status: fault.status, text: String(fault.body) }
    : { status: fault.status, json: fault.body };

const requestOf = (req: LoopbackRequest): DingTalkStandInRequest => ({
  path: req.path,
  token: req.headers['x-acs-dingtalk-access-token'],
  body: (req.body ?? {}) as Record<string, unknown>,
});

/** Starts the gateway, token endpoint, robot and card send endpoints, and the stream socket. */
export async function startStandInApi(app: { clientId: string; clientSecret: string }): Promise<StandInApi> {
  const accessToken = generateId('at_');
  const tickets = new Set<string>();
  const sent: DingTalkSentMessage[] = [];
  let waiters: { count: number; resolve: (message: DingTalkSentMessage) => void }[] = [];
  let tokenFault: DingTalkStandInFault | undefined;
  let sequence = 0;

  function record(req: LoopbackRequest, kind: DingTalkSentMessage['kind']): void {
    sent.push(sentOf(requestOf(req), kind));
    const ready = waiters.filter((w) => sent.length >= w.count);
    waiters = waiters.filter((w) => sent.length < w.count);
    for (const w of ready) w.resolve(sent[w.count - 1] as DingTalkSentMessage);
  }

  const server = await startLoopbackServer({
    guard: (req) =>
      !SENDS.test(req.path) || req.headers['x-acs-dingtalk-access-token'] === accessToken
        ? undefined
        : {
            status: 401,
            json: { code: 'InvalidAuthentication', message: '不合法的access_token', requestid: 'standin' },
          },
    notFound: { status: 404, json: { code: 'NotFound', message: 'no such API' } },
    routes: [
      {
        method: 'POST',
        path: GATEWAY_PATH,
        answer(req) {
          const body = (req.body ?? {}) as Record<string, unknown>;
          if (body['clientId'] !== app.clientId || body['clientSecret'] !== app.clientSecret)
            return {
              status: 401,
              json: { code: 'InvalidAuthentication', message: 'clientId or clientSecret is wrong' },
            };
          const ticket = generateId('ticket_');
          tickets.add(ticket);
          return { json: { endpoint: socket.url, ticket } };
        },
      },
      {
        method: 'POST',
        path: TOKEN_PATH,
        answer(req) {
          if (tokenFault !== undefined) return answerOf(tokenFault);
          const body = (req.body ?? {}) as Record<string, unknown>;
          return body['appKey'] === app.clientId && body['appSecret'] === app.clientSecret
            ? { json: { accessToken, expireIn: 7200 } }
            : {
                status: 400,
                json: {
                  code: 'invalidClientId',
                  message: 'appKey or appSecret is wrong',
                  requestid: 'standin',
                },
              };
        },
      },
      {
        method: 'POST',
        path: /^\/v1\.0\/robot\/(?:groupMessages\/send|oToMessages\/batchSend)$/,
        answer(req) {
          const direct = req.path.endsWith('batchSend');
          record(req, direct ? 'direct' : 'group');
          const key = `pqk-${++sequence}`;
          return {
            json: direct
              ? { processQueryKey: key, invalidStaffIdList: [], flowControlledStaffIdList: [] }
              : { processQueryKey: key },
          };
        },
      },
      {
        method: 'POST',
        path: '/v1.0/card/instances/createAndDeliver',
        answer(req) {
          record(req, 'card');
          const body = req.body as { outTrackId?: string; openSpaceId?: string };
          const carrierId = `carrier-${++sequence}`;
          const delivered = { spaceType: 'IM_GROUP', spaceId: body.openSpaceId, success: true, carrierId };
          return {
            json: { success: true, result: { outTrackId: body.outTrackId, deliverResults: [delivered] } },
          };
        },
      },
    ],
  });
  const socket = startLoopbackSocket(server, {
    path: '/connect',
    accept: (upgrade) => tickets.delete(upgrade.query['ticket'] ?? ''),
  });
  return {
    server,
    socket,
    accessToken,
    sent,
    requestsTo: (path) => server.requestsTo(path).map(requestOf),
    waitForSent: (count) =>
      sent.length >= count
        ? Promise.resolve(sent[count - 1] as DingTalkSentMessage)
        : new Promise((resolve) => waiters.push({ count, resolve })),
    failNext: (faults) => server.failNext(SENDS, ...faults.map(answerOf)),
    failToken(fault) {
      tokenFault = fault;
    },
  };
}

/** What a person sees of one send: its kind, where it went, its text and buttons. */
function sentOf(request: DingTalkStandInRequest, kind: DingTalkSentMessage['kind']): DingTalkSentMessage {
  const body = request.body;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  if (kind === 'card') {
    const params = ((body['cardData'] as { cardParamMap?: Record<string, unknown> } | undefined)
      ?.cardParamMap ?? {}) as Record<string, unknown>;
    const space = text(body['openSpaceId']);
    return {
      ...request,
      kind,
      conversationId: space.slice(space.lastIndexOf('.') + 1) || undefined,
      userIds: [],
      text: text(params['text']),
      buttons: parseButtons(params['buttons']),
      outTrackId: text(body['outTrackId']) || undefined,
    };
  }
  const param = parseObject(body['msgParam']);
  return {
    ...request,
    kind,
    conversationId: kind === 'group' ? text(body['openConversationId']) : undefined,
    userIds: Array.isArray(body['userIds'])
      ? body['userIds'].filter((id): id is string => typeof id === 'string')
      : [],
    text: text(param['content']) || text(param['text']),
    buttons: [],
    outTrackId: undefined,
  };
}

function parseObject(value: unknown): Record<string, unknown> {
  try {
    const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseButtons(value: unknown): { label: string; value: string }[] {
  try {
    const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : [];
    return (Array.isArray(parsed) ? parsed : []).map((b: { label?: unknown; value?: unknown }) => ({
      label: typeof b?.label === 'string' ? b.label : '',
      value: typeof b?.value === 'string' ? b.value : '',
    }));
  } catch {
    return [];
  }
}
