import type { ValidationResult } from '@parley/core';
import type { RequestEvent, RequestState } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { CorrelateMessage, RequestMessage } from '../messages.js';
import type { Protocol } from '../protocol.js';
import type { ReceiveResult, CorrelateRefusal } from '../receive-result.js';
import type { RequestProgressOptions, TrackedRequest } from '../request-types.js';
import type { Shared } from './context.js';
import { Incoming, Tracker, toTracked } from './records.js';
import { requestStep } from '../request-step.js';
import { check, isPromise } from './util.js';

export interface Responder {
  onRequest(message: RequestMessage): ReceiveResult | Promise<ReceiveResult>;
  respond(id: string, response: unknown): TrackedRequest;
  progress(id: string, options?: RequestProgressOptions): TrackedRequest;
  get(id: string): TrackedRequest | undefined;
  list(): TrackedRequest[];
  sweep(now: number): number | undefined;
  pendingCount(): number;
  settledCount(): number;
  clear(): void;
}

/** The responder side of a correlator: requests it received, in memory, each answered at most once. */
export function createResponder(ctx: Shared): Responder {
  const { self, clock, queue, events } = ctx;
  const tracker = new Tracker<Incoming>(ctx.retainMs, ctx.maxSettled);

  function about(
    message: RequestMessage,
  ): Pick<CorrelateRefusal, 'requestId' | 'kind' | 'from' | 'protocol'> {
    return { requestId: message.request_id, kind: 'request', from: message.from, protocol: message.protocol };
  }

  /** One callback for every incoming deadline: no closure per request. */
  function onDeadline(record: Incoming): void {
    record.deadline = undefined;
    settle(record, 'expire', clock.now());
  }

  function finish(record: Incoming, to: RequestState, now: number): void {
    record.state = to;
    record.settledAt = now;
    if (record.deadline !== undefined) queue.remove(record.deadline);
    record.deadline = undefined;
    tracker.settle(record);
    ctx.scheduleSweep(record.settledAt + ctx.retainMs);
    if (events.listenerCount('settled') > 0)
      events.emit('settled', { request: toTracked(record), remote: false });
  }

  /** The one way an incoming record settles; a final state accepts nothing, so it settles once. */
  function settle(record: Incoming, event: RequestEvent, now: number): void {
    const next = requestStep(record.state, record.deadlineAt, event, now);
    if (next !== undefined) finish(record, next.to, now);
  }

  /** The pending record `id` answered at `now`: one clock reading decides and stamps the answer. */
  function pendingOrThrow(id: string, now: number): Incoming {
    if (ctx.isClosed())
      throw new CorrelateError('closed', `Correlator "${self}" is closed`, { details: { self } });
    const record = tracker.get(id);
    // An answer at or past the deadline is too late whatever the timer did: the request expires first.
    if (record !== undefined && record.state === 'pending') {
      if (now < record.deadlineAt) return record;
      settle(record, 'expire', now);
    }
    const done = record;
    if (done !== undefined) {
      throw new CorrelateError('not_pending', `Request "${id}" is already ${done.state}`, {
        details: { requestId: id, state: done.state },
      });
    }
    throw new CorrelateError('unknown_request', `No incoming request "${id}"`, {
      details: { requestId: id },
    });
  }

  function sendOrThrow(record: Incoming, message: CorrelateMessage): void {
    try {
      ctx.send(message);
    } catch (cause) {
      events.emit('error', { code: 'send_failed', requestId: record.id, error: cause });
      throw new CorrelateError('send_failed', `Sending the ${message.kind} to "${record.from}" failed`, {
        details: { requestId: record.id },
        cause,
      });
    }
  }

  function accept(
    message: RequestMessage,
    protocol: Protocol,
    checked: ValidationResult<unknown>,
  ): ReceiveResult {
    const existing = tracker.get(message.request_id);
    if (existing !== undefined) {
      return ctx.refuse({
        ...about(message),
        code: 'duplicate_request',
        state: existing.state,
        message: `Request id "${message.request_id}" is already in use (${existing.state}); the new request is refused`,
      });
    }
    if (!checked.ok) {
      return ctx.refuse({
        ...about(message),
        code: 'invalid_payload',
        issues: checked.issues,
        message: `The payload does not match the ${protocol.name} request schema`,
      });
    }
    const now = clock.now();
    if (message.deadline_at <= now) {
      return ctx.refuse({
        ...about(message),
        code: 'late',
        message: `Request "${message.request_id}" arrived after its deadline`,
      });
    }
    if (tracker.pending >= ctx.maxPending) {
      return ctx.refuse({
        ...about(message),
        code: 'too_many_pending',
        message: `Correlator "${self}" already has ${ctx.maxPending} requests to answer`,
      });
    }
    const maxAt = now + (protocol.maxTotalMs ?? ctx.maxTotalMs);
    const record = new Incoming(
      message.request_id,
      protocol,
      message.from,
      self,
      checked.value,
      now,
      Math.min(message.deadline_at, maxAt),
      maxAt,
      false,
    );
    record.deadline = queue.add(record.deadlineAt, onDeadline, record);
    tracker.addPending(record);
    if (events.listenerCount('request') > 0) events.emit('request', { request: toTracked(record) });
    return { ok: true, kind: 'request', requestId: record.id, state: record.state };
  }

  return {
    onRequest(message) {
      const protocol = ctx.protocols.get(message.protocol);
      if (protocol === undefined) {
        return ctx.refuse({
          ...about(message),
          code: 'unknown_protocol',
          message: `Unknown protocol "${message.protocol}"`,
        });
      }
      const checked = check(protocol.request, message.payload);
      return isPromise(checked)
        ? checked.then((result) => accept(message, protocol, result))
        : accept(message, protocol, checked);
    },

    respond(id, response) {
      const now = clock.now();
      const record = pendingOrThrow(id, now);
      const checked = check(record.protocol.response, response);
      if (isPromise(checked)) {
        checked.catch(() => {}); // answered synchronously below; the async result is not needed
        throw new CorrelateError(
          'invalid_response',
          `The ${record.protocol.name} response schema is asynchronous; respond() needs a synchronous one`,
          {
            details: { requestId: id },
          },
        );
      }
      if (!checked.ok) {
        throw new CorrelateError(
          'invalid_response',
          `The response does not match the ${record.protocol.name} response schema`,
          {
            details: { requestId: id, issues: checked.issues, missingFields: checked.missingFields },
          },
        );
      }
      const decision = record.protocol.decide(checked.value);
      sendOrThrow(record, {
        kind: 'response',
        request_id: id,
        protocol: record.protocol.name,
        from: self,
        to: record.from,
        response: checked.value,
      });
      record.response = checked.value;
      record.reason = decision.reason;
      settle(record, decision.approve ? 'approve' : 'reject', now);
      return toTracked(record);
    },

    progress(id, options = {}) {
      const record = pendingOrThrow(id, clock.now());
      sendOrThrow(record, {
        kind: 'progress',
        request_id: id,
        protocol: record.protocol.name,
        from: self,
        to: record.from,
        ...(options.note === undefined ? {} : { note: options.note }),
        ...(options.waitingOnHuman === undefined ? {} : { waiting_on_human: options.waitingOnHuman }),
      });
      // The requester extends its own deadline, at most to the request's maximum: keep the record until then.
      record.human ||= options.waitingOnHuman === true;
      if (record.deadlineAt < record.maxDeadlineAt) {
        record.deadlineAt = record.maxDeadlineAt;
        if (record.deadline !== undefined) queue.remove(record.deadline);
        record.deadline = queue.add(record.deadlineAt, onDeadline, record);
      }
      return toTracked(record);
    },

    get(id) {
      const record = tracker.get(id);
      return record === undefined ? undefined : toTracked(record);
    },
    list() {
      const out: TrackedRequest[] = [];
      for (const record of tracker.pendingRecords()) out.push(toTracked(record));
      for (const record of tracker.settledRecords()) out.push(toTracked(record));
      return out;
    },
    sweep: (now) => tracker.sweep(now),
    pendingCount: () => tracker.pending,
    settledCount: () => tracker.settledCount,
    clear() {
      tracker.clear();
    },
  };
}
