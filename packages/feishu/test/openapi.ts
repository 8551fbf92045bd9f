// A stand-in of the Feishu OpenAPI on 127.0.0.1 answering the calls the SDK's Client makes:
// tenant_access_token/internal, im/v1/messages (create) and im/v1/messages/:id/reply, with the
// documented answer shapes. Scripted faults answer the next message call.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@parley/core';

export interface RecordedCall {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

export interface Fault {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export interface OpenApiStandIn {
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Message sends (create and reply) in order. */
  messages(): RecordedCall[];
  /** The next message calls get these answers, in order. */
  fail(...faults: Fault[]): void;
  /** The token endpoint answers with this instead of a token. */
  failToken(fault: Fault): void;
  close(): Promise<void>;
}

export const TENANT_TOKEN = 't-g1044qeGEDXTB6NDJOGV4JQCYDGHRBARFTGT1234';

export async function startOpenApi(clock: Clock): Promise<OpenApiStandIn> {
  const calls: RecordedCall[] = [];
  const faults: Fault[] = [];
  let tokenFault: Fault | undefined;
  let sequence = 0;

  const answer = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    res
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
      .end(JSON.stringify(body));
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const text = Buffer.concat(chunks).toString('utf8');
      const call: RecordedCall = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: req.headers.authorization,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      calls.push(call);
      if (call.path === '/open-apis/auth/v3/tenant_access_token/internal') {
        if (tokenFault !== undefined) return answer(res, tokenFault.status, tokenFault.body);
        return answer(res, 200, { code: 0, msg: 'ok', tenant_access_token: TENANT_TOKEN, expire: 7200 });
      }
      const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(call.path);
      if (call.path !== '/open-apis/im/v1/messages' && reply === null) {
        return answer(res, 404, { code: 404, msg: 'not found' });
      }
      if (call.authorization !== `Bearer ${TENANT_TOKEN}`) {
        return answer(res, 400, { code: 99991663, msg: 'Invalid access token for authorization.' });
      }
      const fault = faults.shift();
      if (fault !== undefined) return answer(res, fault.status, fault.body, fault.headers);
      sequence++;
      const body = call.body as { receive_id?: string; msg_type?: string; content?: string };
      return answer(res, 200, {
        code: 0,
        msg: 'success',
        data: {
          message_id: `om_sent_${sequence}`,
          ...(reply === null ? {} : { root_id: reply[1], parent_id: reply[1] }),
          msg_type: body.msg_type,
          create_time: String(clock.now()),
          update_time: String(clock.now()),
          deleted: false,
          updated: false,
          chat_id: body.receive_id ?? 'oc_ops',
          sender: { id: 'cli_a1b2c3', id_type: 'app_id', sender_type: 'app', tenant_key: '2ca1d211f64f6438' },
          body: { content: body.content },
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // a TCP server, so an AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    messages: () => calls.filter((call) => call.path.startsWith('/open-apis/im/v1/messages')),
    fail: (...more) => faults.push(...more),
    failToken: (fault) => {
      tokenFault = fault;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
