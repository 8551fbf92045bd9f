import type { RequestEvent, RequestState } from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { Shared } from './context.js';
import { extraOf, type Outgoing, type Tracker } from './records.js';
import { toReply, toTracked } from './views.js';
import { isPromise } from './util.js';
import type { Waiters } from './waiters.js';

/**
 * Settles a sent request's record in memory: its state, the reply or error its promise and waiters
 * get, the `settled` event and (when this instance settled it) the handlers. Nothing happens to a
 * record that is not pending or after the correlator closed.
 */
export function finishRecord(
  ctx: Shared,
  tracker: Tracker<Outgoing>,
  waiters: Waiters,
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
    ctx.queue.remove(record.deadline);
    record.deadline = undefined;
  }
  const extra = record.extra;
  if (extra !== undefined) {
    extra.offAbort?.();
    extra.signal = undefined;
    extra.offAbort = undefined;
  }
  tracker.settle(record);
  ctx.scheduleSweep(settledAt + ctx.retainMs);
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
  if (ctx.events.listenerCount('settled') > 0)
    ctx.events.emit('settled', { request: toTracked(record), remote });
  if (!remote) waiters.runHandlers(record);
}

/** Sends a request's message; a transport that throws is reported, and the error to cancel it with returned. */
export function sendRequest(ctx: Shared, record: Outgoing): CorrelateError | undefined {
  try {
    ctx.send({
      kind: 'request',
      request_id: record.id,
      protocol: record.protocol.name,
      from: ctx.self,
      to: record.to,
      payload: record.payload,
      deadline_at: record.deadlineAt,
    });
    return undefined;
  } catch (cause) {
    const error = new CorrelateError('send_failed', `Sending request "${record.id}" failed`, {
      details: { requestId: record.id, protocol: record.protocol.name },
      cause,
    });
    ctx.events.emit('error', { code: 'send_failed', requestId: record.id, error: cause });
    return error;
  }
}

/** Rejects every pending request's promise as closed, stops watching their signals and forgets them all. */
export function closeRecords(ctx: Shared, tracker: Tracker<Outgoing>, waiters: Waiters): void {
  for (const record of tracker.pendingRecords()) {
    const extra = record.extra;
    extra?.offAbort?.();
    record.resolve?.(Promise.reject(ctx.closedError()));
    record.resolve = undefined;
  }
  waiters.close();
  tracker.clear();
}

/** How a requester settles one of its records (see `settle` in requester.ts). */
export type Settle = (
  record: Outgoing,
  event: RequestEvent,
  response?: unknown,
  reason?: string,
  error?: CorrelateError,
  at?: number,
) => boolean | Promise<boolean>;

/**
 * Cancels a request when its signal aborts (at once if it has); returns whether the request is
 * still pending, to be sent. Only for a record that has a signal.
 */
export function watchSignal(ctx: Shared, waiters: Waiters, settle: Settle, record: Outgoing): boolean {
  const signal = record.extra?.signal as AbortSignal;
  const cancel = (): void =>
    void settle(record, 'cancel', undefined, undefined, waiters.cancelled(record, signal.reason));
  if (signal.aborted) {
    cancel();
    return false;
  }
  extraOf(record).offAbort = ctx.aborts.on(signal, cancel);
  return true;
}

/** Cancels a pending request; `false` for one that is unknown, settled, or after close. */
export function cancelRequest(
  ctx: Shared,
  tracker: Tracker<Outgoing>,
  settle: Settle,
  id: string,
  reason: string | undefined,
): Promise<boolean> {
  const record = tracker.get(id);
  if (record === undefined || record.state !== 'pending' || ctx.isClosed()) return Promise.resolve(false);
  const result = settle(record, 'cancel', undefined, reason);
  return isPromise(result) ? result : Promise.resolve(result);
}

/** Holds a record another instance stored: a pending one is armed (and expires now if overdue), a settled one kept. */
export function adoptRecord(
  ctx: Shared,
  tracker: Tracker<Outgoing>,
  arm: (record: Outgoing) => void,
  settle: Settle,
  record: Outgoing,
): Outgoing {
  if (record.state === 'pending') {
    tracker.addPending(record);
    arm(record);
    // Overdue while no instance held it: it expires now, before any reply is weighed.
    if (ctx.clock.now() >= record.deadlineAt) void settle(record, 'expire');
  } else {
    tracker.retain(record);
    ctx.scheduleSweep(record.settledAt + ctx.retainMs);
  }
  return record;
}
