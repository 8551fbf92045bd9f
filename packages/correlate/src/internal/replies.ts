import type { ValidationResult } from '@parley/core';
import type { RequestEvent } from '@parley/fsm';
import type { ProgressMessage, ResponseMessage } from '../messages.js';
import type { ReceiveResult, Refusal } from '../receive-result.js';
import type { Shared } from './context.js';
import type { Durable } from './durable-types.js';
import type { Outgoing, Tracker } from './records.js';
import { about, check, isPromise } from './util.js';

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
  const { ctx, tracker, durable, settle, arm } = host;
  const { clock, events } = ctx;

  function refusalFor(record: Outgoing, message: ResponseMessage | ProgressMessage): Refusal {
    const code =
      record.state === 'expired'
        ? 'late'
        : record.state !== 'pending'
          ? 'duplicate'
          : ctx.isClosed()
            ? 'closed' // closed while the reply waited for a write of the same request
            : 'store_error';
    return ctx.refuse({
      ...about(message),
      code,
      state: record.state,
      message:
        code === 'late'
          ? `Request "${record.id}" expired before this ${message.kind} arrived`
          : code === 'duplicate'
            ? `Request "${record.id}" is already ${record.state}`
            : code === 'closed'
              ? `The correlator closed before request "${record.id}" could be settled`
              : `Request "${record.id}" could not be updated in the store`,
    });
  }

  /** A reply or progress note; synchronous unless the store must be read or a schema is async. */
  function onReply(message: ResponseMessage | ProgressMessage): ReceiveResult | Promise<ReceiveResult> {
    const known = tracker.get(message.request_id);
    if (known !== undefined || durable === undefined) return withRecord(known, message);
    return durable.load(message.request_id).then(
      (record) => withRecord(record, message),
      (error: unknown) => {
        events.emit('error', { code: 'store_error', requestId: message.request_id, error });
        return ctx.refuse({ ...about(message), code: 'store_error', message: 'The store could not be read' });
      },
    );
  }

  function withRecord(
    record: Outgoing | undefined,
    message: ResponseMessage | ProgressMessage,
  ): ReceiveResult | Promise<ReceiveResult> {
    if (record === undefined) {
      const text = `No request "${message.request_id}"`;
      return ctx.refuse({ ...about(message), code: 'unknown_request', message: text });
    }
    if (message.from !== record.to) {
      const text = `Request "${record.id}" was sent to "${record.to}", not "${message.from}"`;
      return ctx.refuse({ ...about(message), code: 'wrong_sender', state: record.state, message: text });
    }
    if (message.protocol !== record.protocol.name) {
      const text = `Request "${record.id}" is a ${record.protocol.name} request, not ${message.protocol}`;
      return ctx.refuse({ ...about(message), code: 'protocol_mismatch', state: record.state, message: text });
    }
    if (record.state !== 'pending') return refusalFor(record, message);
    if (clock.now() >= record.deadlineAt) {
      // Its timer has not run yet (a lagging loop, a record just read): the deadline decides first.
      const expired = settle(record, 'expire');
      return isPromise(expired)
        ? expired.then(() => refusalFor(record, message))
        : refusalFor(record, message);
    }
    if (message.kind === 'progress') return onProgress(record, message);
    const checked = check(record.protocol.response, message.response);
    return isPromise(checked)
      ? checked.then((result) => onResponse(record, message, result))
      : onResponse(record, message, checked);
  }

  function onResponse(
    record: Outgoing,
    message: ResponseMessage,
    checked: ValidationResult<unknown>,
  ): ReceiveResult | Promise<ReceiveResult> {
    const protocol = record.protocol;
    if (record.state !== 'pending') return refusalFor(record, message);
    if (!checked.ok) {
      return ctx.refuse({
        ...about(message),
        code: 'invalid_response',
        state: record.state,
        issues: checked.issues,
        message: `The response to "${record.id}" does not match the ${protocol.name} schema; the request stays pending`,
      });
    }
    let approve: boolean;
    let reason: string | undefined;
    try {
      const decision = protocol.decide(checked.value);
      approve = decision.approve;
      reason = decision.reason;
    } catch (error) {
      const text = `decide() of ${protocol.name} threw: ${String(error)}`;
      return ctx.refuse({ ...about(message), code: 'invalid_response', state: record.state, message: text });
    }
    const done = settle(record, approve ? 'approve' : 'reject', checked.value, reason);
    if (isPromise(done)) return done.then((ok) => responded(record, message, ok));
    return responded(record, message, done);
  }

  function responded(record: Outgoing, message: ResponseMessage, ok: boolean): ReceiveResult {
    return ok
      ? { ok: true, kind: 'response', requestId: record.id, state: record.state }
      : refusalFor(record, message);
  }

  async function onProgress(record: Outgoing, message: ProgressMessage): Promise<ReceiveResult> {
    const human = record.human || message.waiting_on_human === true;
    const humanMs = record.protocol.humanTimeoutMs ?? host.humanTimeoutMs;
    const extendMs = human ? Math.max(record.timeoutMs, humanMs) : record.timeoutMs;
    const deadlineAt = Math.max(Math.min(clock.now() + extendMs, record.maxDeadlineAt), record.deadlineAt);
    if (durable !== undefined && !(await durable.extend(record, deadlineAt, human))) {
      return refusalFor(record, message);
    }
    if (record.state !== 'pending') return refusalFor(record, message);
    record.human = human;
    if (deadlineAt !== record.deadlineAt) {
      record.deadlineAt = deadlineAt;
      arm(record);
    }
    events.emit('progress', { requestId: record.id, deadlineAt, waitingOnHuman: human, note: message.note });
    return { ok: true, kind: 'progress', requestId: record.id, state: record.state };
  }

  return onReply;
}
