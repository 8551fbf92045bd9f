import { assertTimeoutMs, type IdGenerator, type Store, type ValidationResult } from '@parley/core';
import type { RequestEvent, RequestState } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { ProgressMessage, ResponseMessage } from '../messages.js';
import type { Protocol } from '../protocol.js';
import type { ReceiveResult, Refusal, Reply, RequestOptions, TrackedRequest } from '../types.js';
import type { Shared } from './context.js';
import { createDurable, type Durable, MIN_STORE_RETAIN_MS } from './durable.js';
import { extraOf, Outgoing, toReply, toTracked, Tracker } from './records.js';
import { about, check, isPromise, nextState } from './util.js';
import { createWaiters } from './waiters.js';

export interface RequesterOptions {
  readonly store: Store | undefined;
  readonly prefix: string;
  readonly nextId: IdGenerator;
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
  const handlers = new Map<string, Set<(request: TrackedRequest) => void>>();
  const durable: Durable | undefined =
    options.store === undefined
      ? undefined
      : createDurable({
          store: options.store,
          prefix: options.prefix,
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

  function request(protocol: Protocol, input: RequestOptions<unknown>): Promise<Reply> {
    if (ctx.isClosed()) return Promise.reject(ctx.closedError());
    if (ctx.protocols.get(protocol.name) !== protocol) {
      return Promise.reject(
        new CorrelateError(
          'unknown_protocol',
          `Protocol "${protocol.name}" is not registered with this correlator`,
          {
            details: { protocol: protocol.name },
          },
        ),
      );
    }
    if (typeof input.to !== 'string' || input.to.length === 0) {
      return Promise.reject(
        new CorrelateError('invalid_options', 'A request needs a non-empty "to"', {
          details: { to: input.to },
        }),
      );
    }
    if (tracker.pending >= ctx.maxPending) {
      return Promise.reject(
        new CorrelateError(
          'too_many_pending',
          `Correlator "${self}" already has ${ctx.maxPending} pending requests`,
          {
            details: { limit: ctx.maxPending, protocol: protocol.name },
          },
        ),
      );
    }
    try {
      const checked = check(protocol.request, input.payload);
      if (isPromise(checked)) return checked.then((result) => start(protocol, input, result));
      return start(protocol, input, checked);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function start(
    protocol: Protocol,
    input: RequestOptions<unknown>,
    checked: ValidationResult<unknown>,
  ): Promise<Reply> {
    if (!checked.ok) {
      throw new CorrelateError(
        'invalid_payload',
        `The payload does not match the ${protocol.name} request schema`,
        {
          details: { protocol: protocol.name, issues: checked.issues, missingFields: checked.missingFields },
        },
      );
    }
    if (ctx.isClosed()) throw ctx.closedError();
    const signal = input.signal;
    if (signal?.aborted) throw waiters.cancelled(undefined, signal.reason);
    const human = input.waitingOnHuman === true;
    const ms =
      input.timeoutMs !== undefined
        ? assertTimeoutMs(input.timeoutMs, 'timeoutMs')
        : human
          ? (protocol.humanTimeoutMs ?? options.humanTimeoutMs)
          : (protocol.timeoutMs ?? options.timeoutMs);
    const now = clock.now();
    const maxAt = now + (protocol.maxTotalMs ?? ctx.maxTotalMs);
    const id = options.nextId();
    if (tracker.has(id)) {
      throw new CorrelateError('invalid_options', `generateId returned "${id}", an id already in use`, {
        details: { id },
      });
    }
    const deadlineAt = now + ms < maxAt ? now + ms : maxAt;
    const record = new Outgoing(
      id,
      protocol,
      self,
      input.to,
      checked.value,
      now,
      deadlineAt,
      maxAt,
      ms,
      human,
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
      extraOf(record).onAbort = cancel;
      signal.addEventListener('abort', cancel, { once: true });
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
  ): boolean | Promise<boolean> {
    const to = nextState(record.state, event);
    if (to === undefined || ctx.isClosed()) return false;
    if (durable !== undefined) return durable.commit(record, event, to, response, reason, error);
    finish(record, to, response, reason, error, clock.now(), false);
    return true;
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
    if (record.state !== 'pending') return;
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
      if (extra.onAbort !== undefined) extra.signal?.removeEventListener('abort', extra.onAbort);
      extra.signal = undefined;
      extra.onAbort = undefined;
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
    if (!remote && handlers.size > 0) runHandlers(record);
  }

  function runHandlers(record: Outgoing): void {
    const set = handlers.get(record.protocol.name);
    if (set === undefined || set.size === 0) return;
    const tracked = toTracked(record);
    for (const handler of set) {
      try {
        handler(tracked);
      } catch (error) {
        events.emit('error', { code: 'handler_failed', requestId: record.id, error });
      }
    }
  }

  function adopt(record: Outgoing): Outgoing {
    if (record.state === 'pending') {
      tracker.addPending(record);
      arm(record);
    } else {
      tracker.retain(record);
      ctx.scheduleSweep(record.settledAt + retainMs);
    }
    return record;
  }

  function refusalFor(record: Outgoing, message: ResponseMessage | ProgressMessage): Refusal {
    const code =
      record.state === 'expired' ? 'late' : record.state === 'pending' ? 'store_error' : 'duplicate';
    return ctx.refuse({
      ...about(message),
      code,
      state: record.state,
      message:
        code === 'late'
          ? `Request "${record.id}" expired before this ${message.kind} arrived`
          : code === 'duplicate'
            ? `Request "${record.id}" is already ${record.state}`
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
    const humanMs = record.protocol.humanTimeoutMs ?? options.humanTimeoutMs;
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
    handle(name: string, handler: (request: TrackedRequest) => void): () => void {
      let set = handlers.get(name);
      if (set === undefined) {
        set = new Set();
        handlers.set(name, set);
      }
      set.add(handler);
      return () => {
        set.delete(handler);
      };
    },
    restore: (): Promise<number> => (durable === undefined ? Promise.resolve(0) : durable.restore()),
    close(): void {
      durable?.unwatch();
      for (const record of tracker.pendingRecords()) {
        const extra = record.extra;
        if (extra?.onAbort !== undefined) extra.signal?.removeEventListener('abort', extra.onAbort);
        record.resolve?.(Promise.reject(ctx.closedError()));
        record.resolve = undefined;
      }
      waiters.close();
      tracker.clear();
    },
  };
}
