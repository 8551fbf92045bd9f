import { sendRequest } from '@parley/testing/loopback';
import type { SlackDelivery } from '../standin-types.js';
import type { StandInSocket } from './standin-socket.js';

/** What delivering to the app reads: where it listens, and how a body is signed. */
export interface DeliverState {
  readonly isClosed: () => boolean;
  /** Settles once the stand-in closes (a Socket Mode delivery still waiting ends then). */
  readonly closing: Promise<void>;
  readonly socket: StandInSocket;
  readonly requestUrl: () => string | undefined;
  /** The signature headers for a body (now, with `secret` or the signing secret). */
  readonly sign: (body: string, at: number | undefined, secret: string | undefined) => Record<string, string>;
}

/**
 * Delivers an Events API body or an interactivity payload: as a Socket Mode envelope when an app
 * is connected, else signed to the Request URL (with Slack's retry headers for `retry` > 0).
 */
export async function deliverToApp(
  at: DeliverState,
  kind: 'events_api' | 'interactive',
  payload: object,
  retry: number,
  secret: string | undefined,
): Promise<SlackDelivery> {
  const ended: SlackDelivery = { ok: false, code: 'closed', message: 'The Slack stand-in is closed' };
  if (at.isClosed()) return ended;
  if (at.socket.connected())
    return Promise.race([
      at.socket.envelope(kind, payload, retry).then(() => ({ ok: true }) as const),
      at.closing.then(() => ended),
    ]);
  const url = at.requestUrl();
  if (url === undefined)
    return {
      ok: false,
      code: 'not_connected',
      message: 'No Request URL is set and no app is connected by Socket Mode',
    };
  const text =
    kind === 'events_api'
      ? JSON.stringify(payload)
      : `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const type = kind === 'events_api' ? 'application/json' : 'application/x-www-form-urlencoded';
  const retried: Record<string, string> =
    retry > 0 ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {};
  return post(url, text, type, { ...at.sign(text, undefined, secret), ...retried });
}

async function post(
  url: string,
  text: string,
  type: string,
  headers: Record<string, string>,
): Promise<SlackDelivery> {
  try {
    const { status } = await sendRequest(url, {
      headers: { 'content-type': type, ...headers },
      body: text,
    });
    if (status >= 200 && status < 300) return { ok: true, status };
    return { ok: false, code: 'request_refused', status, message: `The app at ${url} answered ${status}` };
  } catch (error) {
    return {
      ok: false,
      code: 'request_unreachable',
      message: `The app at ${url} could not be reached: ${String(error)}`,
    };
  }
}
