import { type LoopbackAnswer, type LoopbackRequest, rateLimited } from '@parley/testing/loopback';
import type { SlackStandInCall, SlackStandInFailure } from '../standin-types.js';
import type { StandInCallLog } from './standin-calls.js';
import { APP_METHODS, BOT_METHODS, refuse, type WebApiContext } from './standin-web-api.js';

/** The methods whose successful calls are what the app sent (`sent`). */
const SENDING = new Set(['chat.postMessage', 'chat.update']);

/** What answering a Web API call reads and changes. */
export interface AnswerState {
  readonly token: string;
  readonly appToken: string;
  readonly context: WebApiContext;
  readonly log: StandInCallLog;
  /** Successful sending calls (`sent`). */
  readonly sent: SlackStandInCall[];
  /** Answers queued by `failNext`, each for the next call of its method. */
  readonly failures: { method: string; answer: LoopbackAnswer }[];
}

/**
 * Answers one `POST /api/<method>`: the wrong token `invalid_auth` (or `not_allowed_token_type`),
 * then a queued failure, then the method itself (`unknown_method` when there is none).
 */
export function answerCall(at: AnswerState, req: LoopbackRequest): LoopbackAnswer {
  const method = req.params[0] ?? '';
  const call: SlackStandInCall = { method, params: paramsOf(req.body) };
  const bearer = req.headers['authorization'];
  const forApp = APP_METHODS[method];
  if (bearer !== `Bearer ${forApp === undefined ? at.token : at.appToken}`)
    return refuse(bearer === `Bearer ${at.token}` ? 'not_allowed_token_type' : 'invalid_auth');
  at.log.record(call);
  const failure = at.failures.findIndex((f) => f.method === method);
  if (failure >= 0) return (at.failures.splice(failure, 1)[0] as { answer: LoopbackAnswer }).answer;
  const run = forApp ?? BOT_METHODS[method];
  if (run === undefined) return refuse('unknown_method');
  const result = run(call.params, at.context);
  if (SENDING.has(method) && 'json' in result && (result.json as { ok?: unknown }).ok === true)
    at.sent.push(call);
  return result;
}

/** The answer a `failNext` failure stands for. */
export function answerOf(failure: SlackStandInFailure): LoopbackAnswer {
  if ('drop' in failure) return { drop: true };
  if ('error' in failure) return refuse(failure.error);
  if (failure.status === 429) return rateLimited(failure.retryAfter, { ok: false, error: 'ratelimited' });
  return { status: failure.status, json: { ok: false } };
}

/** The recorded params of a form-encoded call, `blocks` parsed as the JSON it carries. */
function paramsOf(body: unknown): Record<string, unknown> {
  const params: Record<string, unknown> =
    typeof body === 'object' && body !== null ? { ...(body as Record<string, unknown>) } : {};
  if (typeof params['blocks'] === 'string') {
    try {
      params['blocks'] = JSON.parse(params['blocks']) as unknown;
    } catch {
      // kept as sent: Slack would answer invalid_blocks
    }
  }
  return params;
}
