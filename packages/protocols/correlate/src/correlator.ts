import { createDeadlineQueue, createEmitter, type DeadlineHandle } from '@parley/core';
import { CorrelateError, type CorrelateRefusalCode } from './errors.js';
import type { ReceiveResult, CorrelateRefusal } from './receive-result.js';
import type { RequestPromise, TrackedRequest } from './request-types.js';
import type { Correlator, CorrelatorEvents, CorrelatorOptions } from './types.js';
import type { Shared } from './internal/context.js';
import { listRequests, statsOf } from './internal/listing.js';
import { checkCorrelatorOptions } from './internal/options.js';
import { toTracked } from './internal/views.js';
import { createRequester } from './internal/requester.js';
import { createResponder } from './internal/responder.js';
import { handlerFailed, routeMessage } from './internal/route.js';
import { createAbortWatch } from './internal/signals.js';
import { compactIds, isPromise } from './internal/util.js';

/** A handler of settled requests, as the requester side holds it. */
type Handler = (request: TrackedRequest) => unknown;

/**
 * Creates a correlator for one party: it sends requests of its protocols with fresh ids, returns a
 * typed promise of each reply, tracks every request through the shared request machine
 * (`pending → approved | rejected | expired | cancelled`) and answers the requests it receives.
 *
 * Use one per agent or bot. It is transport-agnostic: it hands outgoing messages to `send` and is
 * fed incoming ones with `receive`, which never throws. Deadlines share one timer. With a `store`,
 * pending requests are written through it, so another instance (or this one after a restart,
 * with `restore()`) expires them on time and settles them when the reply arrives, exactly once.
 *
 * @throws CorrelateError `invalid_argument` for an empty `self`, two protocols with one name or a
 * bad limit; CoreError `invalid_timeout` for a bad deadline.
 * @example
 * ```ts
 * import { createCorrelator, shutdownProtocol, type CorrelateMessage } from '@parley/correlate';
 *
 * const wire: CorrelateMessage[] = [];
 * const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: (m) => wire.push(m) });
 * const alice = createCorrelator({ self: 'alice', protocols: [shutdownProtocol], send: (m) => wire.push(m) });
 *
 * const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'work is done' } });
 * await alice.receive(wire.shift());
 * alice.respond(reply.id, { approve: true }); // the request_id both sides know it by
 * await lead.receive(wire.shift());
 * console.log((await reply).state); // approved
 * lead.close(); // clears the retention sweep's timer
 * alice.close();
 * ```
 */
export function createCorrelator(options: CorrelatorOptions): Correlator {
  const { self, clock, timeoutMs, humanTimeoutMs, maxTotalMs, maxPending, retainMs, maxSettled, protocols } =
    checkCorrelatorOptions(options);

  const queue = createDeadlineQueue({ clock });
  // Dropping old audit records is housekeeping: its timer must not keep a process alive.
  const sweeps = createDeadlineQueue({ clock, background: true });
  const events = createEmitter<CorrelatorEvents>();
  const refusals: Partial<Record<CorrelateRefusalCode, number>> = {};
  let sweepHandle: DeadlineHandle | undefined;
  let closed = false;

  function sweep(): void {
    sweepHandle = undefined;
    const now = clock.now();
    const a = requester.tracker.sweep(now) ?? Number.POSITIVE_INFINITY;
    const b = responder.sweep(now) ?? Number.POSITIVE_INFINITY;
    if (a !== b || a !== Number.POSITIVE_INFINITY) shared.scheduleSweep(Math.min(a, b));
  }

  const shared: Shared = {
    self,
    clock,
    queue,
    events,
    protocols,
    maxPending,
    maxTotalMs,
    retainMs,
    maxSettled,
    send: options.send,
    refuse(refusal) {
      refusals[refusal.code] = (refusals[refusal.code] ?? 0) + 1;
      const result: CorrelateRefusal = { ok: false, ...refusal };
      events.emit('refused', result);
      return result;
    },
    scheduleSweep(dueAt) {
      if (sweepHandle === undefined && retainMs > 0) sweepHandle = sweeps.add(dueAt, sweep);
    },
    isClosed: () => closed,
    aborts: createAbortWatch(),
    closedError: () => new CorrelateError('closed', `Correlator "${self}" is closed`, { details: { self } }),
  };
  const responder = createResponder(shared);
  const requester = createRequester(shared, {
    store: options.store,
    prefix: options.keyPrefix ?? `correlate:${self}:`,
    nextId: options.generateId ?? compactIds(),
    uniqueIds: options.generateId === undefined,
    timeoutMs,
    humanTimeoutMs,
  });
  const tracker = requester.tracker;

  const failed = (error: unknown): CorrelateRefusal => handlerFailed(shared, error);

  return {
    self,
    // The protocol's types tie the reply to its response schema; the record holds it as unknown.
    request: (protocol, input) => requester.request(protocol, input) as RequestPromise<never>,
    receive(raw) {
      let result: ReceiveResult | Promise<ReceiveResult>;
      try {
        result = routeMessage(shared, responder, requester, raw, closed);
      } catch (error) {
        result = failed(error);
      }
      // An async step that throws (a user schema, a bug) is reported the same way.
      return isPromise(result) ? result.then(undefined, failed) : Promise.resolve(result);
    },
    respond: (id, response) => responder.respond(id, response),
    progress: (id, progressOptions) => responder.progress(id, progressOptions),
    cancel: (id, reason) => requester.cancel(id, reason),
    waitFor: (id, waitOptions = {}) => requester.waitFor(id, waitOptions.signal),
    // The response of a settled request was checked by this protocol's schema.
    handle: (protocol, handler) =>
      requester.handle(typeof protocol === 'string' ? protocol : protocol.name, handler as Handler),
    restore: () => (closed ? Promise.resolve(0) : requester.restore()),
    get(id) {
      const record = tracker.get(id);
      return record === undefined ? responder.get(id) : toTracked(record);
    },
    list: (filter = {}) => listRequests(tracker, responder, filter),
    stats: () => statsOf(tracker, responder, refusals),
    on: (event, listener) => events.on(event, listener),
    close() {
      if (closed) return;
      closed = true;
      requester.close();
      responder.clear();
      queue.clear();
      sweeps.clear();
      sweepHandle = undefined;
    },
  };
}
