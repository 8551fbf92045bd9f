import { request } from 'node:http';

/**
 * What {@link sendRequest} sends: method (POST by default), headers and a text body.
 *
 * @example
 * ```ts
 * import type { SendRequestInit } from '@parley/testing/loopback';
 *
 * const init: SendRequestInit = { headers: { 'content-type': 'application/json' }, body: '{"update_id":1}' };
 * ```
 */
export interface SendRequestInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * The answer {@link sendRequest} resolves to: status, headers (lower-case names) and the text.
 *
 * @example
 * ```ts
 * import type { SentRequest } from '@parley/testing/loopback';
 *
 * const ok = (answer: SentRequest): boolean => answer.status === 200;
 * ```
 */
export interface SentRequest {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/**
 * Sends one HTTP request over a fresh connection (no keep-alive agent, so nothing stays open) and
 * resolves with the answer: what a test does as the platform when it posts a webhook to the bot.
 * Unlike `fetch`, it leaves no abort listener behind. Rejects on a network error.
 *
 * @example
 * ```ts
 * import { sendRequest, startLoopbackServer } from '@parley/testing/loopback';
 *
 * const bot = await startLoopbackServer({ routes: [{ path: '/webhook', answer: () => ({ text: 'ok' }) }] });
 * const answer = await sendRequest(`${bot.url}/webhook`, { body: '{"update_id":1}' });
 * console.log(answer.status, answer.text); // 200 ok
 * await bot.close();
 * ```
 */
export function sendRequest(url: string, init: SendRequestInit = {}): Promise<SentRequest> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'POST', headers: init.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
