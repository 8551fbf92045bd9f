// A stand-in of Slack's Web API on loopback for the real @slack/web-api WebClient (Bolt's
// `app.client`, pointed here with `clientOptions.slackApiUrl`): it answers auth.test and
// chat.postMessage in the documented shapes, records every call (form-encoded, as the WebClient
// sends them), and lets a test script failures: `{ ok: false, error }`, HTTP 429 with Retry-After,
// a dropped connection. https://api.slack.com/web
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@parley/core';

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
  failNext(method: string, failure: WebApiFailure): void;
  close(): Promise<void>;
}

/** Slack's `ts` for a clock time: seconds, then six digits (ms and a counter, so every ts is unique). */
export function tsAt(ms: number, seq = 0): string {
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000 + seq).padStart(6, '0')}`;
}

export async function startWebApi(clock: Clock): Promise<WebApiStandIn> {
  const calls: WebApiCall[] = [];
  const failures = new Map<string, WebApiFailure[]>();
  let seq = 0;

  const json = (res: ServerResponse, body: unknown, status = 200, headers: object = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const params: Record<string, unknown> = {};
      for (const [key, value] of form) params[key] = key === 'blocks' ? JSON.parse(value) : value;
      calls.push({ method, params });
      if (req.headers.authorization !== 'Bearer xoxb-test-token')
        return json(res, { ok: false, error: 'invalid_auth' });
      const failure = failures.get(method)?.shift();
      if (failure !== undefined) {
        if ('drop' in failure) return void req.socket.destroy();
        if ('error' in failure) return json(res, { ok: false, error: failure.error });
        if (failure.status === 429)
          return json(res, { ok: false, error: 'ratelimited' }, 429, {
            'retry-after': String(failure.retryAfter),
          });
        return json(res, { ok: false }, failure.status);
      }
      if (method === 'auth.test') {
        return json(res, {
          ok: true,
          url: 'https://ops.slack.com/',
          team: 'Ops',
          user: 'shopbot',
          team_id: TEAM,
          user_id: BOT_USER,
          bot_id: BOT_ID,
        });
      }
      if (method === 'chat.postMessage') {
        const ts = tsAt(clock.now(), ++seq);
        const channel = String(params['channel']);
        return json(res, {
          ok: true,
          channel,
          ts,
          message: {
            type: 'message',
            user: BOT_USER,
            bot_id: BOT_ID,
            text: params['text'],
            ts,
            ...(params['blocks'] === undefined ? {} : { blocks: params['blocks'] }),
          },
        });
      }
      return json(res, { ok: false, error: 'unknown_method' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo; // a TCP server: an AddressInfo
  return {
    url: `http://127.0.0.1:${port}/api/`,
    callsOf: (method) => calls.filter((call) => call.method === method),
    failNext(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
