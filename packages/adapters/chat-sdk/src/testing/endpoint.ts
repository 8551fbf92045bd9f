import { sendRequest } from '@parley/testing/loopback';
import { ChatSdkAdapterError } from '../errors.js';

/**
 * Where a stand-in delivers what the platform sends the bot: the bot's webhook URL, or its webhook
 * handler called in process (`(request) => bot.webhooks.discord(request)`).
 *
 * @example
 * ```ts
 * import type { BotEndpoint } from '@parley/chat-sdk/testing';
 *
 * const inProcess: BotEndpoint = async () => new Response('ok');
 * const overHttp: BotEndpoint = 'http://127.0.0.1:3000/api/webhooks/teams';
 * ```
 */
export type BotEndpoint = string | ((request: Request) => Promise<Response>);

/**
 * The bot's answer to one delivery: its HTTP status and body text.
 *
 * @example
 * ```ts
 * import type { BotAnswer } from '@parley/chat-sdk/testing';
 *
 * const accepted = (answer: BotAnswer): boolean => answer.status === 200;
 * ```
 */
export interface BotAnswer {
  readonly status: number;
  readonly text: string;
}

/** Posts `body` (JSON) with `headers` to the bot; throws `invalid_argument` without an endpoint. */
export async function deliverTo(
  endpoint: BotEndpoint | undefined,
  body: string,
  headers: Readonly<Record<string, string>>,
): Promise<BotAnswer> {
  if (endpoint === undefined)
    throw new ChatSdkAdapterError('invalid_argument', 'the stand-in has no bot to deliver to: give it `bot`');
  const all = { 'content-type': 'application/json', ...headers };
  if (typeof endpoint === 'string') {
    const answer = await sendRequest(endpoint, { body, headers: all });
    return { status: answer.status, text: answer.text };
  }
  const response = await endpoint(
    new Request('http://bot.test/webhook', { method: 'POST', headers: all, body }),
  );
  return { status: response.status, text: await response.text() };
}

/**
 * Wraps a `fetch` so that each call reads the whole answer and then aborts its own signal: Node's
 * `fetch` otherwise leaves an abort listener attached until garbage collection, which a test's leak
 * check counts. Put it in place of the global `fetch` while a Chat SDK adapter (which calls the
 * global one) talks to a stand-in.
 *
 * @example
 * ```ts
 * import { settledFetch } from '@parley/chat-sdk/testing';
 *
 * const realFetch = globalThis.fetch;
 * globalThis.fetch = settledFetch(realFetch);
 * // … the test …
 * globalThis.fetch = realFetch;
 * ```
 */
export function settledFetch(real: typeof fetch): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    try {
      const response = await real(input, { ...init, signal: controller.signal });
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, headers: response.headers });
    } finally {
      controller.abort();
    }
  };
}
