// A stand-in of DingTalk on 127.0.0.1: the stream gateway's connections/open endpoint, a
// WebSocket endpoint (the `ws` package, which dingtalk-stream itself uses) that pushes documented
// stream frames and records the client's acknowledgements, and the OpenAPI endpoints the adapter
// calls (oauth2/accessToken, robot groupMessages/send and oToMessages/batchSend,
// card/instances/createAndDeliver). Scripted faults answer the next OpenAPI send.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

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
  readonly gateway: Recorded[];
  /** OpenAPI sends, in order (not the token requests). */
  readonly sends: Recorded[];
  readonly tokenRequests: Recorded[];
  /** Pushes a CALLBACK frame on `topic`; resolves with the client's acknowledgement. */
  push(
    topic: string,
    data: unknown,
    messageId?: string,
    raw?: boolean,
  ): { messageId: string; acked: Promise<Ack> };
  /** Resolves once a stream client is connected. */
  connected(): Promise<void>;
  /** Resolves when the connected stream client has closed its socket. */
  disconnected(): Promise<void>;
  fail(...faults: Fault[]): void;
  failToken(fault: Fault): void;
  close(): Promise<void>;
}

export async function startDingTalk(): Promise<DingTalkStandIn> {
  const gateway: Recorded[] = [];
  const sends: Recorded[] = [];
  const tokenRequests: Recorded[] = [];
  const faults: Fault[] = [];
  let tokenFault: Fault | undefined;
  const tickets = new Set<string>();
  const acks = new Map<string, (ack: Ack) => void>();
  let socket: WebSocket | undefined;
  let onConnect: (() => void) | undefined;
  let onClose: (() => void) | undefined;
  let sequence = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const text = Buffer.concat(chunks).toString('utf8');
      const token = req.headers['x-acs-dingtalk-access-token'];
      const call: Recorded = {
        path,
        token: typeof token === 'string' ? token : undefined,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      const answer = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' }).end(JSON.stringify(body));
      };
      if (path === '/v1.0/gateway/connections/open') {
        gateway.push(call);
        if (call.body['clientId'] !== CLIENT_ID || call.body['clientSecret'] !== CLIENT_SECRET) {
          return answer(401, { code: 'InvalidAuthentication', message: 'clientId or clientSecret is wrong' });
        }
        const ticket = randomUUID();
        tickets.add(ticket);
        const { port } = server.address() as AddressInfo; // listening on TCP
        return answer(200, { endpoint: `ws://127.0.0.1:${port}/connect`, ticket });
      }
      if (path === '/v1.0/oauth2/accessToken') {
        tokenRequests.push(call);
        if (tokenFault !== undefined) return answer(tokenFault.status, tokenFault.body);
        return answer(200, { accessToken: ACCESS_TOKEN, expireIn: 7200 });
      }
      if (call.token !== ACCESS_TOKEN) {
        return answer(401, {
          code: 'InvalidAuthentication',
          message: '不合法的access_token',
          requestid: 'r-1',
        });
      }
      sends.push(call);
      const fault = faults.shift();
      if (fault?.raw === true) return void res.writeHead(fault.status).end(String(fault.body));
      if (fault !== undefined) return answer(fault.status, fault.body);
      sequence++;
      if (path === '/v1.0/robot/groupMessages/send')
        return answer(200, { processQueryKey: `pqk-${sequence}` });
      if (path === '/v1.0/robot/oToMessages/batchSend') {
        return answer(200, {
          processQueryKey: `pqk-${sequence}`,
          invalidStaffIdList: [],
          flowControlledStaffIdList: [],
        });
      }
      if (path === '/v1.0/card/instances/createAndDeliver') {
        const body = call.body as { outTrackId?: string; openSpaceId?: string };
        return answer(200, {
          success: true,
          result: {
            outTrackId: body.outTrackId,
            deliverResults: [
              {
                spaceType: 'IM_GROUP',
                spaceId: body.openSpaceId,
                success: true,
                carrierId: `carrier-${sequence}`,
              },
            ],
          },
        });
      }
      return answer(404, { code: 'NotFound', message: 'no such API' });
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, stream, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/connect' || !tickets.delete(ticket)) {
      stream.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, stream, head, (ws) => {
      socket = ws;
      ws.on('message', (raw) => {
        const ack = JSON.parse(String(raw)) as Ack;
        acks.get(ack.headers.messageId)?.(ack);
        acks.delete(ack.headers.messageId);
      });
      ws.on('close', () => onClose?.());
      onConnect?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // listening on TCP
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    sends,
    tokenRequests,
    push(topic, data, messageId = randomUUID(), raw = false) {
      const acked = new Promise<Ack>((resolve) => acks.set(messageId, resolve));
      const frame = {
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
      };
      socket?.send(JSON.stringify(frame));
      return { messageId, acked };
    },
    connected: () =>
      socket !== undefined && socket.readyState === socket.OPEN
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onConnect = resolve;
          }),
    disconnected: () =>
      new Promise<void>((resolve) => {
        onClose = resolve;
      }),
    fail: (...more) => faults.push(...more),
    failToken: (fault) => {
      tokenFault = fault;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
