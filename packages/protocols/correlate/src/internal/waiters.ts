import { CorrelateError } from '../errors.js';
import type { Reply, TrackedRequest } from '../request-types.js';
import type { Shared } from './context.js';
import type { Durable } from './durable-types.js';
import type { Outgoing, Tracker } from './records.js';
import { toReply, toTracked } from './views.js';
import { isThenable } from './util.js';

type Handler = (request: TrackedRequest) => unknown;

interface Waiter {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: unknown) => void;
  /** Stops watching the wait's signal, if it has one. */
  off: (() => void) | undefined;
}

/** What a requester's waiters and handlers are told through. */
export type Waiters = ReturnType<typeof createWaiters>;

/**
 * Who hears that a request settled besides its promise: `waitFor` callers and `handle` handlers;
 * and the errors a request fails with.
 */
export function createWaiters(ctx: Shared, tracker: Tracker<Outgoing>) {
  const waiting = new Map<string, Waiter[]>();
  const handlers = new Map<string, Set<Handler>>();

  async function waitFor(
    id: string,
    signal: AbortSignal | undefined,
    durable: Durable | undefined,
  ): Promise<Reply> {
    if (ctx.isClosed()) throw ctx.closedError();
    let record = tracker.get(id);
    if (record === undefined && durable !== undefined) {
      try {
        record = await durable.load(id);
      } catch (cause) {
        throw new CorrelateError('store_failed', `Request "${id}" could not be read from the store`, {
          details: { requestId: id },
          cause,
        });
      }
      if (ctx.isClosed()) throw ctx.closedError();
    }
    if (record === undefined) {
      throw new CorrelateError('unknown_request', `No request "${id}" here`, { details: { requestId: id } });
    }
    if (record.state === 'approved' || record.state === 'rejected') return toReply(record);
    if (record.state !== 'pending') throw failure(record);
    if (signal?.aborted) throw cancelled(record, signal.reason);
    const pending = record;
    return new Promise<Reply>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, off: undefined };
      if (signal !== undefined) {
        waiter.off = ctx.aborts.on(signal, () => {
          const list = waiting.get(id);
          const index = list?.indexOf(waiter) ?? -1;
          if (index >= 0) list?.splice(index, 1);
          reject(cancelled(pending, signal.reason));
        });
      }
      const list = waiting.get(id);
      if (list === undefined) waiting.set(id, [waiter]);
      else list.push(waiter);
    });
  }

  return {
    handle(name: string, handler: Handler): () => void {
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
    /** Runs the handlers of the record's protocol on the instance that settled it. */
    runHandlers(record: Outgoing): void {
      const set = handlers.size === 0 ? undefined : handlers.get(record.protocol.name);
      if (set === undefined || set.size === 0) return;
      const tracked = toTracked(record);
      for (const handler of set) {
        const failed = (error: unknown): void => {
          ctx.events.emit('error', { code: 'handler_failed', requestId: record.id, error });
        };
        try {
          const done = handler(tracked);
          if (isThenable(done)) done.then(undefined, failed);
        } catch (error) {
          failed(error);
        }
      }
    },
    failure,
    cancelled,
    waitFor,
    /** Settles everyone waiting for `record`, with its reply or (without one) its failure. */
    settle(record: Outgoing, reply: Reply | undefined): void {
      if (waiting.size === 0) return;
      const list = waiting.get(record.id);
      if (list === undefined) return;
      waiting.delete(record.id);
      for (const waiter of list) done(waiter, reply, reply === undefined ? failure(record) : undefined);
    },
    close(): void {
      for (const list of waiting.values())
        for (const waiter of list) done(waiter, undefined, ctx.closedError());
      waiting.clear();
    },
  };
}

/** The error a request that settled without a reply fails with: timed out, or cancelled. */
function failure(record: Outgoing): CorrelateError {
  if (record.state !== 'expired') return cancelled(record, undefined);
  return new CorrelateError(
    'timeout',
    `No reply from "${record.to}" to ${record.protocol.name} request "${record.id}" by its deadline`,
    {
      details: {
        requestId: record.id,
        protocol: record.protocol.name,
        to: record.to,
        deadlineAt: record.deadlineAt,
      },
    },
  );
}

/** The error of a cancelled request (or of a wait for one). */
function cancelled(record: Outgoing | undefined, cause: unknown): CorrelateError {
  return new CorrelateError('cancelled', `The request${record ? ` "${record.id}"` : ''} was cancelled`, {
    details:
      record === undefined
        ? {}
        : { requestId: record.id, protocol: record.protocol.name, reason: record.reason },
    cause,
  });
}

/** Stops a waiter watching its signal and settles it with the reply, or the error. */
function done(waiter: Waiter, reply: Reply | undefined, error: unknown): void {
  waiter.off?.();
  if (reply !== undefined) waiter.resolve(reply);
  else waiter.reject(error);
}
