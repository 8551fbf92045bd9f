import type { RequestEvent, RequestState } from '@parley/fsm';
import type { RequestMessage } from '../messages.js';
import type { ReceiveResult } from '../receive-result.js';
import type { RequestProgressOptions, TrackedRequest } from '../request-types.js';
import { eventAt } from '../request-step.js';
import { about, admitRequest } from './admit.js';
import { checkedResponse, pendingOrThrow, sendOrThrow } from './answer.js';
import type { Shared } from './context.js';
import { type Incoming, Tracker } from './records.js';
import { toTracked } from './views.js';
import { check, isPromise, nextState } from './util.js';

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
    // requestStep's rule with no result object (see settle in requester.ts).
    const to = nextState(record.state, eventAt(record.deadlineAt, event, now));
    if (to !== undefined) finish(record, to, now);
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
        ? checked.then((result) => admitRequest(ctx, tracker, onDeadline, message, protocol, result))
        : admitRequest(ctx, tracker, onDeadline, message, protocol, checked);
    },

    respond(id, response) {
      const now = clock.now();
      const record = pendingOrThrow(ctx, tracker, settle, id, now);
      const value = checkedResponse(record, id, response);
      const decision = record.protocol.decide(value);
      sendOrThrow(ctx, record, {
        kind: 'response',
        request_id: id,
        protocol: record.protocol.name,
        from: self,
        to: record.from,
        response: value,
      });
      record.response = value;
      record.reason = decision.reason;
      settle(record, decision.approve ? 'approve' : 'reject', now);
      return toTracked(record);
    },

    progress(id, options = {}) {
      const record = pendingOrThrow(ctx, tracker, settle, id, clock.now());
      sendOrThrow(ctx, record, {
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
    list: () => listIncoming(tracker),
    sweep: (now) => tracker.sweep(now),
    pendingCount: () => tracker.pending,
    settledCount: () => tracker.settledCount,
    clear() {
      tracker.clear();
    },
  };
}

/** The requests a responder received, pending first. */
function listIncoming(tracker: Tracker<Incoming>): TrackedRequest[] {
  const out: TrackedRequest[] = [];
  for (const record of tracker.pendingRecords()) out.push(toTracked(record));
  for (const record of tracker.settledRecords()) out.push(toTracked(record));
  return out;
}
