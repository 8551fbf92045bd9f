import type { Clock } from '@parley/core';
import { DingTalkAdapterError } from '../errors.js';
import axios from 'axios';

/** A token is renewed this long before DingTalk says it expires. */
const TOKEN_MARGIN_MS = 5 * 60_000;

/** Calls DingTalk's OpenAPI (api.dingtalk.com) with an app access token it keeps fresh. */
export interface OpenApi {
  post(path: string, body: unknown, operation: string): Promise<Record<string, unknown>>;
}

export interface OpenApiOptions {
  readonly apiBase: string;
  readonly appKey: string;
  readonly appSecret: string;
  readonly clock: Clock;
}

export function createOpenApi(options: OpenApiOptions): OpenApi {
  const { apiBase, clock } = options;
  // Its own axios instance: a host's interceptors on the default one do not apply here.
  const http = axios.create({ validateStatus: () => true, headers: { accept: 'application/json' } });
  let token: { value: string; until: number } | undefined;
  let pending: Promise<string> | undefined;

  async function call(
    path: string,
    body: unknown,
    operation: string,
    headers: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    let answer: { status: number; body: unknown };
    try {
      const response = await http.post<unknown>(`${apiBase}${path}`, body, { headers });
      answer = { status: response.status, body: response.data };
    } catch (error) {
      throw new DingTalkAdapterError('send_failed', `DingTalk could not be reached for ${operation}`, {
        details: { operation },
        cause: error,
      });
    }
    const data = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Record<
      string,
      unknown
    >;
    if (answer.status >= 200 && answer.status < 300 && typeof data['code'] !== 'string') return data;
    throw failure(operation, answer.status, data);
  }

  async function fetchToken(): Promise<string> {
    const data = await call(
      '/v1.0/oauth2/accessToken',
      { appKey: options.appKey, appSecret: options.appSecret },
      'oauth2.accessToken',
      {},
    );
    const value = data['accessToken'];
    const expireIn = Number(data['expireIn']);
    if (typeof value !== 'string' || !(expireIn > 0)) {
      throw new DingTalkAdapterError(
        'send_failed',
        'DingTalk answered the access token request without a token',
        {
          details: { operation: 'oauth2.accessToken' },
        },
      );
    }
    token = { value, until: clock.now() + expireIn * 1000 - TOKEN_MARGIN_MS };
    return value;
  }

  async function accessToken(): Promise<string> {
    if (token !== undefined && clock.now() < token.until) return token.value;
    pending ??= fetchToken().finally(() => {
      pending = undefined;
    });
    return pending;
  }

  return {
    async post(path, body, operation) {
      const value = await accessToken();
      return call(path, body, operation, { 'x-acs-dingtalk-access-token': value });
    },
  };
}

/** A typed error for a refused call; flow control becomes `rate_limited`. */
function failure(operation: string, status: number, data: Record<string, unknown>): DingTalkAdapterError {
  const details: Record<string, unknown> = { operation, status };
  if (typeof data['code'] === 'string') details['platformCode'] = data['code'];
  if (typeof data['message'] === 'string') details['platformMessage'] = data['message'];
  if (typeof data['requestid'] === 'string') details['requestId'] = data['requestid'];
  const code = String(data['code'] ?? '');
  if (status === 429 || /QpsLimit|Throttling|FlowControl/i.test(code)) {
    return new DingTalkAdapterError('rate_limited', `DingTalk rate-limited ${operation}`, { details });
  }
  return new DingTalkAdapterError(
    'send_failed',
    `DingTalk refused ${operation}: ${String(data['message'] ?? status)}`,
    { details },
  );
}
