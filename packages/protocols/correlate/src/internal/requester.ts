import type { IdGenerator, Store } from '@parley/core';
import type { RequestEvent } from '@parley/fsm';
import type { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { Reply, RequestOptions, RequestPromise, TrackedRequest } from '../request-types.js';
import { eventAt } from '../request-step.js';
import type { Shared } from './context.js';
import { createDurable, MIN_STORE_RETAIN_MS } from './durable.js';
import type { Durable } from './durable-types.js';
import {
  adoptRecord,
  cancelRequest,
  closeRecords,
  finishRecord,
  sendRequest,
  watchSignal,
} from './outgoing.js';
import { type Outgoing, Tracker } from './records.js';
import { createReplyHandler } from './replies.js';
import { type StartHost, startRequest } from './request-start.js';
import { nextState } from './util.js';
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
          adopt: (record) => adoptRecord(ctx, tracker, arm, settle, record),
          finish: (record, to, response, reason, error, settledAt, remote) =>
            finishRecord(ctx, tracker, waiters, record, to, response, reason, error, settledAt, remote),
        });
  // Made once: starting a request reads what it needs from here.
  const host: StartHost = { ctx, ...options, tracker, waiters, durable, launch, reserved: 0 };
  const onReply = createReplyHandler({
    ctx,
    tracker,
    durable,
    humanTimeoutMs: options.humanTimeoutMs,
    settle,
    arm,
  });

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
    if (record.extra?.signal !== undefined && !watchSignal(ctx, waiters, settle, record)) return;
    const failed = sendRequest(ctx, record);
    if (failed !== undefined) void settle(record, 'cancel', undefined, 'send_failed', failed);
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
    // requestStep's rule in two calls, with no result object: this runs on every reply.
    const applied = eventAt(record.deadlineAt, event, now);
    const to = nextState(record.state, applied);
    if (to === undefined) return false;
    // Past the deadline the event became an expiry: it settles nothing of its own.
    if (applied !== event)
      finishRecord(ctx, tracker, waiters, record, to, undefined, undefined, undefined, now, false);
    else finishRecord(ctx, tracker, waiters, record, to, response, reason, error, now, false);
    return applied === event;
  }

  return {
    tracker,
    request: (protocol: Protocol, input: RequestOptions<unknown>): RequestPromise<Reply> =>
      startRequest(host, protocol, input),
    onReply,
    cancel: (id: string, reason: string | undefined): Promise<boolean> =>
      cancelRequest(ctx, tracker, settle, id, reason),
    waitFor: (id: string, signal: AbortSignal | undefined) => waiters.waitFor(id, signal, durable),
    handle: (name: string, handler: (request: TrackedRequest) => unknown) => waiters.handle(name, handler),
    restore: (): Promise<number> => (durable === undefined ? Promise.resolve(0) : durable.restore()),
    close(): void {
      durable?.unwatch();
      closeRecords(ctx, tracker, waiters);
    },
  };
}
