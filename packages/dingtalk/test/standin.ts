// A stand-in of DingTalk on 127.0.0.1: the stream gateway's connections/open endpoint, a
// WebSocket endpoint (on the `ws` package, which dingtalk-stream itself uses) that pushes documented
// stream frames and records the client's acknowledgements, and the OpenAPI endpoints the adapter
// calls (oauth2/accessToken, robot groupMessages/send and oToMessages/batchSend,
// card/instances/createAndDeliver). Scripted faults answer the next OpenAPI send. Built on
// @parley/testing's loopback server and its WebSocket endpoint (loopback-ws).
import { randomUUID } from 'node:crypto';
import { type LoopbackAnswer, type LoopbackRequest, startLoopbackServer } from '@parley/testing/loopback';
import { startLoopbackSocket } from '@parley/testing/loopback-ws';

export const CLIENT_ID = 'dingq7xbm2kz4frsel0n';
export const CLIENT_SECRET = 'Xw3-secret-for-the-stand-in';
export const ACCESS_TOKEN = 'e3f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4';

export interface Recorded {
  readonly path: string;
  readonly token: string | undefined;
  readonly body: Record<string, unknown>;
}

export interface Fault {
  readonly status: number;
  readonly body: unknown;
  /** Send `body` as it is (a string), not as JSON. */
  readonly raw?: boolean;
}

export interface Ack {
  readonly code: number;
  readonly headers: { readonly messageId: string };
  readonly data: string;
}

export interface DingTalkStandIn {
  readonly url: string;
  /** connections/open requests (clientId, clientSecret, subscriptions). */
  readonly gateway: readonly Recorded[];
  /** OpenAPI sends with a valid access token, in order (not the token requests). */
  readonly sends: readonly Recorded[];
  readonly tokenRequests: readonly Recorded[];
  /** Pushes a CALLBACK frame on `topic`; resolves with the client's acknowledgement. */
  push(
    topic: string,
    data: unknown,
    messageId?: string,
    raw?: boolean,
  ): { messageId: string; acked: Promise<Ack> };
  /** How many stream clients are connected now. */
  readonly connections: number;
  /** Resolves once a stream client is connected. */
  connected(): Promise<void>;
  /** Resolves when the connected stream client has closed its socket. */
  disconnected(): Promise<void>;
  fail(...faults: Fault[]): void;
  failToken(fault: Fault): void;
  close(): Promise<void>;
}

const GATEWAY = '/v1.0/gateway/connections/open';
const TOKEN = '/v1.0/oauth2/accessToken';
/** Every path but the gateway's and the token's: the OpenAPI sends. */
const SENDS = /^(?!\/v1\.0\/(?:gateway\/connections\/open|oauth2\/accessToken)$)/;

const answerOf = (fault: Fault): LoopbackAnswer =>
  fault.raw === true
    ? { status: fault.status, text: String(fault.body) }
    : { status: fault.status, json: fault.body };

const recordOf = (req: LoopbackRequest): Recorded => ({
  path: req.path,
  token: req.headers['x-acs-dingtalk-access-token'],
  body: (req.body ?? {}) as Record<string, unknown>,
});

export async function startDingTalk(): Promise<DingTalkStandIn> {
  let tokenFault: Fault | undefined;
  const tickets = new Set<string>();
  let sequence = 0;
  const server = await startLoopbackServer({
    guard: (req) =>
      !SENDS.test(req.path) || req.headers['x-acs-dingtalk-access-token'] === ACCESS_TOKEN
        ? undefined
        : {
            status: 401,
            json: { code: 'InvalidAuthentication', message: '不合法的access_token', requestid: 'r-1' },
          },
    notFound: { status: 404, json: { code: 'NotFound', message: 'no such API' } },
    routes: [
      {
        path: GATEWAY,
        answer: (req) => {
          const body = recordOf(req).body;
          if (body['clientId'] !== CLIENT_ID || body['clientSecret'] !== CLIENT_SECRET) {
            return {
              status: 401,
              json: { code: 'InvalidAuthentication', message: 'clientId or clientSecret is wrong' },
            };
          }
          const ticket = randomUUID();
          tickets.add(ticket);
          return { json: { endpoint: socket.url, ticket } };
        },
      },
      {
        path: TOKEN,
        answer: () =>
          tokenFault !== undefined
            ? answerOf(tokenFault)
            : { json: { accessToken: ACCESS_TOKEN, expireIn: 7200 } },
      },
      {
        path: '/v1.0/robot/groupMessages/send',
        answer: () => ({ json: { processQueryKey: `pqk-${++sequence}` } }),
      },
      {
        path: '/v1.0/robot/oToMessages/batchSend',
        answer: () => ({
          json: {
            processQueryKey: `pqk-${++sequence}`,
            invalidStaffIdList: [],
            flowControlledStaffIdList: [],
          },
        }),
      },
      {
        path: '/v1.0/card/instances/createAndDeliver',
        answer: (req) => {
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
    url: server.url,
    get gateway() {
      return server.requestsTo(GATEWAY).map(recordOf);
    },
    get sends() {
      return server
        .requestsTo(SENDS)
        .map(recordOf)
        .filter((call) => call.token === ACCESS_TOKEN);
    },
    get tokenRequests() {
      return server.requestsTo(TOKEN).map(recordOf);
    },
    push(topic, data, messageId = randomUUID(), raw = false) {
      const acked = socket.nextFrame((frame) => (frame as Partial<Ack>).headers?.messageId === messageId);
      socket.send({
        specVersion: '1.0',
        type: 'CALLBACK',
        headers: {
          appId: 'a3b1c2d4-app',
          connectionId: 'c0ffee01-conn',
          contentType: 'application/json',
          messageId,
          time: '1767225605000',
          topic,
        },
        data: raw ? String(data) : JSON.stringify(data),
      });
      return { messageId, acked: acked as Promise<Ack> };
    },
    get connections() {
      return socket.connections;
    },
    connected: () => socket.connected(),
    disconnected: () => socket.disconnected(),
    fail: (...more) => server.failNext(SENDS, ...more.map(answerOf)),
    failToken: (fault) => {
      tokenFault = fault;
    },
    close: () => server.close(),
  };
}
