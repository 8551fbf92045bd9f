/// <reference types="node" />
// Plain HTTP/1.1 requests over node:http for the /testing entry (no fetch: undici leaves abort listeners behind).
import { request } from 'node:http';

export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

/** One request; `body` is sent as JSON when given. Rejects only when the connection fails. */
export function http(
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: {
          ...extraHeaders,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
