// A stand-in of the Feishu OpenAPI on 127.0.0.1 answering the calls the SDK's Client makes:
// tenant_access_token/internal, im/v1/messages (create) and im/v1/messages/:id/reply, with the
// documented answer shapes. Scripted faults answer the next message call.
import type { Clock } from '@parley/core';
import { type LoopbackAnswer, type LoopbackRequest, startLoopbackServer } from '@parley/testing/loopback';

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
  readonly calls: readonly RecordedCall[];
  /** Message sends (create and reply) in order. */
  messages(): RecordedCall[];
  /** Resolves with the `count`-th message send (create or reply) once it has arrived. */
  waitForMessage(count?: number): Promise<RecordedCall>;
  /** The next message calls get these answers, in order. */
  fail(...faults: Fault[]): void;
  /** The token endpoint answers with this instead of a token. */
  failToken(fault: Fault): void;
  close(): Promise<void>;
}

export const TENANT_TOKEN = 't-g1044qeGEDXTB6NDJOGV4JQCYDGHRBARFTGT1234';

const TOKEN_PATH = '/open-apis/auth/v3/tenant_access_token/internal';
const MESSAGES = /^\/open-apis\/im\/v1\/messages(?:\/([^/]+)\/reply)?$/;

const answerOf = (fault: Fault): LoopbackAnswer => ({
  status: fault.status,
  json: fault.body,
  ...(fault.headers === undefined ? {} : { headers: fault.headers }),
});

export async function startOpenApi(clock: Clock): Promise<OpenApiStandIn> {
  let tokenFault: Fault | undefined;
  let sequence = 0;
  const server = await startLoopbackServer({
    notFound: { status: 404, json: { code: 404, msg: 'not found' } },
    guard: (req) =>
      !MESSAGES.test(req.path) || req.headers['authorization'] === `Bearer ${TENANT_TOKEN}`
        ? undefined
        : { status: 400, json: { code: 99991663, msg: 'Invalid access token for authorization.' } },
    routes: [
      {
        path: TOKEN_PATH,
        answer: () =>
          tokenFault !== undefined
            ? answerOf(tokenFault)
            : { json: { code: 0, msg: 'ok', tenant_access_token: TENANT_TOKEN, expire: 7200 } },
      },
      {
        path: MESSAGES,
        answer: (req) => {
          sequence++;
          const repliedTo = req.params[0];
          const body = req.body as { receive_id?: string; msg_type?: string; content?: string };
          return {
            json: {
              code: 0,
              msg: 'success',
              data: {
                message_id: `om_sent_${sequence}`,
                ...(repliedTo === '' ? {} : { root_id: repliedTo, parent_id: repliedTo }),
                msg_type: body.msg_type,
                create_time: String(clock.now()),
                update_time: String(clock.now()),
                deleted: false,
                updated: false,
                chat_id: body.receive_id ?? 'oc_ops',
                sender: {
                  id: 'cli_a1b2c3',
                  id_type: 'app_id',
                  sender_type: 'app',
                  tenant_key: '2ca1d211f64f6438',
                },
                body: { content: body.content },
              },
            },
          };
        },
      },
    ],
  });
  const recordOf = (req: LoopbackRequest): RecordedCall => ({
    method: req.method,
    path: req.path,
    query: req.query,
    authorization: req.headers['authorization'],
    body: (req.body ?? {}) as Record<string, unknown>,
  });
  const recorded = (): RecordedCall[] => server.requests.map(recordOf);
  return {
    url: server.url,
    get calls() {
      return recorded();
    },
    messages: () => recorded().filter((call) => call.path.startsWith('/open-apis/im/v1/messages')),
    waitForMessage: async (count = 1) => recordOf(await server.waitFor(MESSAGES, count)),
    fail: (...more) => server.failNext(MESSAGES, ...more.map(answerOf)),
    failToken: (fault) => {
      tokenFault = fault;
    },
    close: () => server.close(),
  };
}
