// A stand-in of Slack's Web API on loopback for the real @slack/web-api WebClient (Bolt's
// `app.client`, pointed here with `clientOptions.slackApiUrl`): it answers auth.test and
// chat.postMessage in the documented shapes, records every call (form-encoded, as the WebClient
// sends them), and lets a test script failures: `{ ok: false, error }`, HTTP 429 with Retry-After,
// a dropped connection. https://api.slack.com/web
import type { Clock } from '@parley/core';
import { type LoopbackAnswer, rateLimited, startLoopbackServer } from '@parley/testing/loopback';

export const BOT_USER = 'U0BOT00001';
export const BOT_ID = 'B0BOT00001';
export const TEAM = 'T0TEAM0001';

export interface WebApiCall {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export type WebApiFailure =
  | { readonly error: string }
  | { readonly status: 429; readonly retryAfter: number }
  | { readonly status: 500 }
  | { readonly drop: true };

export interface WebApiStandIn {
  /** The value for the WebClient's `slackApiUrl`. */
  readonly url: string;
  callsOf(method: string): WebApiCall[];
  /** The `count`-th call of `method` (1-based), once it has been made. */
  waitFor(method: string, count?: number): Promise<WebApiCall>;
  failNext(method: string, failure: WebApiFailure): void;
  /** Reshapes the next `chat.postMessage` answer (the whole JSON body), e.g. to spoil its `ts`. */
  reshapeNextPost(reshape: (answer: Record<string, unknown>) => Record<string, unknown>): void;
  close(): Promise<void>;
}

/** Slack's `ts` for a clock time: seconds, then six digits (ms and a counter, so every ts is unique). */
export function tsAt(ms: number, seq = 0): string {
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000 + seq).padStart(6, '0')}`;
}

/** The recorded params of a form-encoded call, `blocks` parsed as the JSON it carries. */
function paramsOf(body: unknown): Record<string, unknown> {
  const params: Record<string, unknown> = { ...(body as Record<string, string> | undefined) };
  if (typeof params['blocks'] === 'string') params['blocks'] = JSON.parse(params['blocks']);
  return params;
}

function answerOf(failure: WebApiFailure): LoopbackAnswer {
  if ('drop' in failure) return { drop: true };
  if ('error' in failure) return { json: { ok: false, error: failure.error } };
  if (failure.status === 429) return rateLimited(failure.retryAfter, { ok: false, error: 'ratelimited' });
  return { status: failure.status, json: { ok: false } };
}

export async function startWebApi(clock: Clock): Promise<WebApiStandIn> {
  let seq = 0;
  let reshapes: ((answer: Record<string, unknown>) => Record<string, unknown>)[] = [];
  const server = await startLoopbackServer({
    guard: (req) =>
      req.headers['authorization'] === 'Bearer xoxb-test-token'
        ? undefined
        : { json: { ok: false, error: 'invalid_auth' } },
    notFound: { json: { ok: false, error: 'unknown_method' } },
    routes: [
      {
        path: '/api/auth.test',
        answer: () => ({
          json: {
            ok: true,
            url: 'https://ops.slack.com/',
            team: 'Ops',
            user: 'shopbot',
            team_id: TEAM,
            user_id: BOT_USER,
            bot_id: BOT_ID,
          },
        }),
      },
      {
        path: '/api/chat.postMessage',
        answer: (req) => {
          const params = paramsOf(req.body);
          const ts = tsAt(clock.now(), ++seq);
          const reshape = reshapes.shift() ?? ((answer) => answer);
          return {
            json: reshape({
              ok: true,
              channel: String(params['channel']),
              ts,
              message: {
                type: 'message',
                user: BOT_USER,
                bot_id: BOT_ID,
                text: params['text'],
                ts,
                ...(params['blocks'] === undefined ? {} : { blocks: params['blocks'] }),
              },
            }),
          };
        },
      },
    ],
  });
  return {
    url: `${server.url}/api/`,
    callsOf: (method) =>
      server.requestsTo(`/api/${method}`).map((req) => ({ method, params: paramsOf(req.body) })),
    async waitFor(method, count = 1) {
      const req = await server.waitFor(`/api/${method}`, count);
      return { method, params: paramsOf(req.body) };
    },
    failNext(method, failure) {
      server.failNext(`/api/${method}`, answerOf(failure));
    },
    reshapeNextPost(reshape) {
      reshapes = [...reshapes, reshape];
    },
    close: () => server.close(),
  };
}
