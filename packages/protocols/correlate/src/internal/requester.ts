import type { IdGenerator, Store, ValidationResult } from '@parley/core';
import type { RequestEvent, RequestState } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { Reply, RequestOptions, RequestPromise, TrackedRequest } from '../request-types.js';
import type { Shared } from './context.js';
import { createDurable, MIN_STORE_RETAIN_MS } from './durable.js';
import type { Durable } from './durable-types.js';
import { extraOf, Outgoing, toReply, toTracked, Tracker } from './records.js';
import { requestStep } from '../request-step.js';
import { check, isPromise, withId } from './util.js';
import { createReplyHandler } from './replies.js';
import { assertAdmissible, assertValidPayload, requestTiming } from './request-admission.js';
import { createWaiters } from './waiters.js';

export interface RequesterOptions {
  readonly store: Store | undefined;
  readonly prefix: string;
  readonly nextId: IdGenerator;
  /** `nextId` is the built-in generator (a random prefix and a counter): it never repeats, so no lookup. */
  readonly uniqueIds: boolean;
  readonly timeoutMs: number;
  readonly humanTimeoutMs: number;
}

export type Requester = ReturnType<typeof createRequester>;

type Resolve = (value: Reply | PromiseLike<Reply>) => void;
let captured: Resolve | undefined;
/** One executor for every request's promise: no closure per request (the record takes `captured`). */
const capture = (resolve: Resolve): void => {
  captured = resolve;
};

/** The requester side of a correlator: requests it sent, their deadlines, replies and waiters. */
export function createRequester(ctx: Shared, options: RequesterOptions) {
  const { self, clock, queue, events, retainMs } = ctx;
  const tracker = new Tracker<Outgoing>(retainMs, ctx.maxSettled);
  const waiters = createWaiters(ctx, tracker);
  const durable: Durable | undefined =
    options.store === undefined
      ? undefined
      : createDurable({
          store: options.store,
          prefix: options.prefix,
          self,
          clock,
          events,
          protocols: ctx.protocols,
          tracker,
          storeRetainMs: Math.max(retainMs, MIN_STORE_RETAIN_MS),
          isClosed: ctx.isClosed,
          arm,
          launch,
          adopt,
          finish,
        });
  const onReply = createReplyHandler({
    ctx,
    tracker,
    durable,
    humanTimeoutMs: options.humanTimeoutMs,
    settle,
    arm,
  });

  /** Requests whose async payload check is still running: they hold a place under `maxPending`. */
  let reserved = 0;

  function request(protocol: Protocol, input: RequestOptions<unknown>): RequestPromise<Reply> {
    let id = '';
    let result: Promise<Reply>;
    try {
      id = newId();
      result = begin(id, protocol, input);
    } catch (error) {
      result = Promise.reject(error);
    }
    return withId(result, id);
  }

  /** The id of a new request, given before any check so every promise carries one. */
  function newId(): string {
    const id = options.nextId();
    assertFree(id);
    return id;
  }

  /** A generator other than the built-in one may repeat an id: one in use is refused. */
  function assertFree(id: string): void {
    if (!options.uniqueIds && tracker.has(id)) {
      throw new CorrelateError('invalid_argument', `generateId returned "${id}", an id already in use`, {
        details: { id },
      });
    }
  }

  function begin(id: string, protocol: Protocol, input: RequestOptions<unknown>): Promise<Reply> {
    assertAdmissible(ctx, protocol, input, tracker.pending + reserved);
    const checked = check(protocol.request, input.payload);
    if (!isPromise(checked)) return start(id, protocol, input, checked);
    // The place is taken now, not when the schema answers: the limit holds across the await.
    reserved++;
    return checked.then(
      (result) => {
        reserved--;
        return start(id, protocol, input, result);
      },
      (error: unknown) => {
        reserved--;
        throw error;
      },
    );
  }

  function start(
    id: string,
    protocol: Protocol,
    input: RequestOptions<unknown>,
    checked: ValidationResult<unknown>,
  ): Promise<Reply> {
    assertValidPayload(protocol, checked);
    if (ctx.isClosed()) throw ctx.closedError();
    const signal = input.signal;
    if (signal?.aborted) throw waiters.cancelled(undefined, signal.reason);
    const now = clock.now();
    const timing = requestTiming(ctx, protocol, input, options, now);
    assertFree(id); // again: a request may have taken it while the schema was awaited
    const record = new Outgoing(
      id,
      protocol,
      self,
      input.to,
      checked.value,
      now,
      timing.deadlineAt,
      timing.maxDeadlineAt,
      timing.timeoutMs,
      timing.human,
    );
    const promise = new Promise<Reply>(capture);
    record.resolve = captured;
    captured = undefined;
    tracker.addPending(record);
    if (signal !== undefined) extraOf(record).signal = signal;
    if (durable === undefined) launch(record);
    else void durable.persistThenLaunch(record);
    return promise;
  }

  function onDeadline(record: Outgoing): void {
    record.deadline = undefined;
    void settle(record, 'expire');
  }

  function arm(record: Outgoing, at = record.deadlineAt): void {
    if (record.deadline !== undefined) queue.remove(record.deadline);
    record.deadline = queue.add(at, onDeadline, record);
  }

  function launch(record: Outgoing): void {
    arm(record);
    const signal = record.extra?.signal;
    if (signal !== undefined) {
      const cancel = (): void =>
        void settle(record, 'cancel', undefined, undefined, waiters.cancelled(record, signal.reason));
      if (signal.aborted) {
        cancel();
        return;
      }
      extraOf(record).offAbort = ctx.aborts.on(signal, cancel);
    }
    try {
      ctx.send({
        kind: 'request',
        request_id: record.id,
        protocol: record.protocol.name,
        from: self,
        to: record.to,
        payload: record.payload,
        deadline_at: record.deadlineAt,
      });
    } catch (cause) {
      const error = new CorrelateError('send_failed', `Sending request "${record.id}" failed`, {
        details: { requestId: record.id, protocol: record.protocol.name },
        cause,
      });
      events.emit('error', { code: 'send_failed', requestId: record.id, error: cause });
      void settle(record, 'cancel', undefined, 'send_failed', error);
    }
  }

  /** The one way a requester record settles: reply, deadline, abort, cancel and failure all come here. */
  function settle(
    record: Outgoing,
    event: RequestEvent,
    response?: unknown,
    reason?: string,
    error?: CorrelateError,
    at?: number,
  ): boolean | Promise<boolean> {
    if (ctx.isClosed()) return false;
    if (durable !== undefined) return durable.commit(record, event, response, reason, error);
    const now = at ?? clock.now();
    const next = requestStep(record.state, record.deadlineAt, event, now);
    if (next === undefined) return false;
    // Past the deadline the event became an expiry: it settles nothing of its own.
    if (next.event !== event) finish(record, next.to, undefined, undefined, undefined, now, false);
    else finish(record, next.to, response, reason, error, now, false);
    return next.event === event;
  }

  function finish(
    record: Outgoing,
    to: RequestState,
    response: unknown,
    reason: string | undefined,
    error: CorrelateError | undefined,
    settledAt: number,
    remote: boolean,
  ): void {
    // After close() nothing is kept or armed here: a write that lands then is the store's alone.
    if (record.state !== 'pending' || ctx.isClosed()) return;
    record.state = to;
    record.settledAt = settledAt;
    if (reason !== undefined) record.reason = reason;
    if (response !== undefined) record.response = response;
    if (record.deadline !== undefined) {
      queue.remove(record.deadline);
      record.deadline = undefined;
    }
    const extra = record.extra;
    if (extra !== undefined) {
      extra.offAbort?.();
      extra.signal = undefined;
      extra.offAbort = undefined;
    }
    tracker.settle(record);
    ctx.scheduleSweep(settledAt + retainMs);
    const resolve = record.resolve;
    record.resolve = undefined;
    if (to === 'approved' || to === 'rejected') {
      const reply = toReply(record);
      resolve?.(reply);
      waiters.settle(record, reply);
    } else {
      // A rejected promise handed to resolve: the record keeps one settle function, not two.
      resolve?.(Promise.reject(error ?? waiters.failure(record)));
      waiters.settle(record, undefined);
    }
    if (events.listenerCount('settled') > 0) events.emit('settled', { request: toTracked(record), remote });
    if (!remote) waiters.runHandlers(record);
  }

  function adopt(record: Outgoing): Outgoing {
    if (record.state === 'pending') {
      tracker.addPending(record);
      arm(record);
      // Overdue while no instance held it: it expires now, before any reply is weighed.
      if (clock.now() >= record.deadlineAt) void settle(record, 'expire');
    } else {
      tracker.retain(record);
      ctx.scheduleSweep(record.settledAt + retainMs);
    }
    return record;
  }

  return {
    tracker,
    request,
    onReply,
    cancel(id: string, reason: string | undefined): Promise<boolean> {
      const record = tracker.get(id);
      if (record === undefined || record.state !== 'pending' || ctx.isClosed()) return Promise.resolve(false);
      const result = settle(record, 'cancel', undefined, reason);
      return isPromise(result) ? result : Promise.resolve(result);
    },
    waitFor: (id: string, signal: AbortSignal | undefined) => waiters.waitFor(id, signal, durable),
    handle: (name: string, handler: (request: TrackedRequest) => unknown) => waiters.handle(name, handler),
    restore: (): Promise<number> => (durable === undefined ? Promise.resolve(0) : durable.restore()),
    close(): void {
      durable?.unwatch();
      for (const record of tracker.pendingRecords()) {
        const extra = record.extra;
        extra?.offAbort?.();
        record.resolve?.(Promise.reject(ctx.closedError()));
        record.resolve = undefined;
      }
      waiters.close();
      tracker.clear();
    },
  };
}
