import type { LoopbackAnswer, LoopbackRequest } from '@parley/testing/loopback';
import type { TelegramStandInCall } from '../standin-types.js';
import type { StandInCallLog } from './standin-calls.js';
import { METHODS, type MethodAnswer, type MethodContext } from './standin-methods.js';
import { getUpdatesParams, type StandInPolling } from './standin-polling.js';

/** The methods whose successful calls are what the bot sent (`sent`). */
const SENDING = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup', 'answerCallbackQuery']);

/** Telegram's answer to an unknown method or path. */
export const NOT_FOUND: LoopbackAnswer = {
  status: 404,
  json: { ok: false, error_code: 404, description: 'Not Found: method not found' },
};
const CONFLICT: LoopbackAnswer = {
  status: 409,
  json: {
    ok: false,
    error_code: 409,
    description:
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
  },
};

/** What answering a Bot API call reads and changes. */
export interface AnswerState {
  readonly token: string;
  readonly context: MethodContext;
  readonly polling: StandInPolling;
  readonly log: StandInCallLog;
  /** Successful sending calls (`sent`). */
  readonly sent: TelegramStandInCall[];
  /** Answers queued by `failNext` / `dropNext`, each for the next call of its method. */
  readonly failures: { method: string; answer: LoopbackAnswer }[];
  /** Open getUpdates requests, settled once their answer is written (close waits for them). */
  readonly polls: Set<Promise<void>>;
  /** The `onSend` hook, run after a `sendMessage` is in the chat. */
  readonly sendHook: () => (() => void | Promise<void>) | undefined;
}

/**
 * Answers one `POST /bot<token>/<method>`: a wrong token 401, then a queued failure, then
 * `getUpdates` (409 while a webhook is set), then the method itself (404 when unknown).
 */
export async function answerCall(
  at: AnswerState,
  req: LoopbackRequest,
  onClose: (listener: () => void) => void,
): Promise<LoopbackAnswer> {
  const [given, method = ''] = req.params;
  const params = isRecord(req.body) ? req.body : {};
  const call: TelegramStandInCall = { method, params };
  if (given !== at.token)
    return { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } };
  at.log.record(call);
  const failure = at.failures.findIndex((f) => f.method === method);
  if (failure >= 0) return (at.failures.splice(failure, 1)[0] as { answer: LoopbackAnswer }).answer;
  if (method === 'getUpdates') {
    if (at.context.webhook !== undefined) return CONFLICT;
    const answered = new Promise<void>((resolve) => onClose(resolve));
    at.polls.add(answered);
    void answered.then(() => at.polls.delete(answered));
    return { json: { ok: true, result: await at.polling.getUpdates(getUpdatesParams(params), onClose) } };
  }
  const run = METHODS[method];
  if (run === undefined) return NOT_FOUND;
  const result: MethodAnswer = run(params, at.context); // in the same turn as record: a waiter sees it done
  if (!('ok' in result)) return { status: result.error_code, json: { ok: false, ...result } };
  if (SENDING.has(method)) at.sent.push(call);
  if (method === 'sendMessage') await at.sendHook()?.(); // the message is in the chat; the bot is told later
  return { json: result };
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
