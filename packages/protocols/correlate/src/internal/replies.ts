import type { RequestEvent } from '@parley/fsm';
import type { ProgressMessage, ResponseMessage } from '../messages.js';
import type { ReceiveResult, CorrelateRefusal } from '../receive-result.js';
import type { Shared } from './context.js';
import type { Durable } from './durable-types.js';
import type { Outgoing, Tracker } from './records.js';
import {
  judgeResponse,
  type ReplyRefusal,
  type ResponseVerdict,
  replyRefusal,
  settledRefusal,
  unknownRequest,
} from '../reply-rules.js';
import { about, isPromise } from './util.js';

export interface ReplyHost {
  readonly ctx: Shared;
  readonly tracker: Tracker<Outgoing>;
  readonly durable: Durable | undefined;
  readonly humanTimeoutMs: number;
  settle(
    record: Outgoing,
    event: RequestEvent,
    response?: unknown,
    reason?: string,
    error?: undefined,
    now?: number,
  ): boolean | Promise<boolean>;
  arm(record: Outgoing): void;
}

/**
 * Replies and progress notes to requests this correlator sent: each is matched to its record,
 * checked (sender, protocol, state, schema) and either settles or extends it, or is refused as data.
 */
export function createReplyHandler(
  host: ReplyHost,
): (message: ResponseMessage | ProgressMessage) => ReceiveResult | Promise<ReceiveResult> {
  const { ctx, tracker, durable, settle } = host;
  const { clock, events } = ctx;

  /** A reply or progress note; synchronous unless the store must be read or a schema is async. */
  function onReply(message: ResponseMessage | ProgressMessage): ReceiveResult | Promise<ReceiveResult> {
    const known = tracker.get(message.request_id);
    if (known !== undefined || durable === undefined) return withRecord(known, message);
    return durable.load(message.request_id).then(
      (record) => withRecord(record, message),
      (error: unknown) => {
        events.emit('error', { code: 'store_failed', requestId: message.request_id, error });
        return ctx.refuse({
          ...about(message),
          code: 'store_failed',
          message: 'The store could not be read',
        });
      },
    );
  }

  function withRecord(
    record: Outgoing | undefined,
    message: ResponseMessage | ProgressMessage,
  ): ReceiveResult | Promise<ReceiveResult> {
    // One clock reading per reply: the check and the settlement it leads to decide at the same instant.
    const now = clock.now();
    if (record === undefined) return refused(unknownRequest(message.request_id), message);
    const refusal = replyRefusal(record, record.protocol.name, message, now);
    if (refusal === undefined) return accepted(record, message, now);
    if (refusal.expire) {
      // Its timer has not run yet (a lagging loop, a record just read): the deadline decides first.
      const expired = settle(record, 'expire', undefined, undefined, undefined, now);
      return isPromise(expired)
        ? expired.then(() => refusalFor(ctx, record, message))
        : refusalFor(ctx, record, message);
    }
    return refused(refusal, message);
  }

  function refused(refusal: ReplyRefusal, message: ResponseMessage | ProgressMessage): CorrelateRefusal {
    const { ok: _ok, expire: _expire, ...rest } = refusal;
    return ctx.refuse({ ...about(message), ...rest });
  }

  function accepted(
    record: Outgoing,
    message: ResponseMessage | ProgressMessage,
    now: number,
  ): ReceiveResult | Promise<ReceiveResult> {
    if (message.kind === 'progress') return onProgress(host, record, message);
    const verdict = judgeResponse(record.protocol, record.id, message.response);
    // An async schema answers later: the settlement then reads the clock when it runs.
    return isPromise(verdict)
      ? verdict.then((v) => onResponse(record, message, v, undefined))
      : onResponse(record, message, verdict, now);
  }

  function onResponse(
    record: Outgoing,
    message: ResponseMessage,
    verdict: ResponseVerdict,
    now: number | undefined,
  ): ReceiveResult | Promise<ReceiveResult> {
    if (record.state !== 'pending') return refusalFor(ctx, record, message);
    if (!verdict.ok) return ctx.refuse({ ...about(message), ...verdict, state: record.state });
    const done = settle(record, verdict.event, verdict.response, verdict.reason, undefined, now);
    if (isPromise(done)) return done.then((ok) => responded(record, message, ok));
    return responded(record, message, done);
  }

  function responded(record: Outgoing, message: ResponseMessage, ok: boolean): ReceiveResult {
    return ok
      ? { ok: true, kind: 'response', requestId: record.id, state: record.state }
      : refusalFor(ctx, record, message);
  }

  return onReply;
}

/** The refusal of a reply its record cannot take: settled already, closed meanwhile, or not updated in the store. */
function refusalFor(
  ctx: Shared,
  record: Outgoing,
  message: ResponseMessage | ProgressMessage,
): CorrelateRefusal {
  const { state } = record;
  if (state !== 'pending') {
    const { code, message: text } = settledRefusal(record.id, state, message.kind);
    return ctx.refuse({ ...about(message), code, state, message: text });
  }
  // Still pending after a settle that did not land: closed while the reply waited, or the store failed.
  return ctx.isClosed()
    ? ctx.refuse({
        ...about(message),
        code: 'closed',
        state,
        message: `The correlator closed before request "${record.id}" could be settled`,
      })
    : ctx.refuse({
        ...about(message),
        code: 'store_failed',
        state,
        message: `Request "${record.id}" could not be updated in the store`,
      });
}

/** A progress note to a pending request: extends its deadline (further while a human is awaited), stored first when durable. */
async function onProgress(
  host: ReplyHost,
  record: Outgoing,
  message: ProgressMessage,
): Promise<ReceiveResult> {
  const { ctx, durable } = host;
  const { clock, events } = ctx;
  const human = record.human || message.waiting_on_human === true;
  const humanMs = record.protocol.humanTimeoutMs ?? host.humanTimeoutMs;
  const extendMs = human ? Math.max(record.timeoutMs, humanMs) : record.timeoutMs;
  const deadlineAt = Math.max(Math.min(clock.now() + extendMs, record.maxDeadlineAt), record.deadlineAt);
  if (durable !== undefined && !(await durable.extend(record, deadlineAt, human))) {
    return refusalFor(ctx, record, message);
  }
  if (record.state !== 'pending') return refusalFor(ctx, record, message);
  record.human = human;
  if (deadlineAt !== record.deadlineAt) {
    record.deadlineAt = deadlineAt;
    host.arm(record);
  }
  events.emit('progress', { requestId: record.id, deadlineAt, waitingOnHuman: human, note: message.note });
  return { ok: true, kind: 'progress', requestId: record.id, state: record.state };
}
