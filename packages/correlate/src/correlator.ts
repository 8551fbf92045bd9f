import {
  assertTimeoutMs,
  createDeadlineQueue,
  createEmitter,
  type DeadlineHandle,
  type StoreChange,
  systemClock,
  type ValidationResult,
} from '@parley/core';
import type { RequestEvent, RequestState } from '@parley/fsm';
import { CorrelateError, type RefusalCode } from './errors.js';
import {
  type CorrelateMessage,
  parseMessage,
  type ProgressMessage,
  type ResponseMessage,
} from './messages.js';
import type { Protocol } from './protocol.js';
import {
  type Correlator,
  type CorrelatorEvents,
  type CorrelatorOptions,
  DEFAULT_HUMAN_TIMEOUT_MS,
  DEFAULT_MAX_PENDING,
  DEFAULT_MAX_SETTLED,
  DEFAULT_MAX_TOTAL_MS,
  DEFAULT_RETAIN_SETTLED_MS,
  DEFAULT_TIMEOUT_MS,
  type ReceiveResult,
  type Refusal,
  type Reply,
  type TrackedRequest,
} from './types.js';
import { createResponder } from './internal/responder.js';
import {
  applyStored,
  decode,
  encode,
  fromStored,
  Outgoing,
  SettledLog,
  toReply,
  toTracked,
} from './internal/records.js';
import { check, compactIds, isPromise, nextState, positiveInteger } from './internal/util.js';

/** What settles a request besides the event: the response, a reason, the error for the promise. */
export interface Outcome {
  readonly response?: unknown;
  readonly reason?: string | undefined;
  readonly error?: CorrelateError;
  readonly settledAt?: number | undefined;
}

interface Waiter {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: (() => void) | undefined;
}

/** Settled records stay this long in a shared store at least, so other instances read the outcome. */
const MIN_STORE_RETAIN_MS = 60_000;
/** A deadline whose store write failed is tried again after this long. */
const RETRY_MS = 1_000;

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
 * @throws CorrelateError `invalid_options` for an empty `self`, two protocols with one name or a
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
 * alice.respond(alice.list({ role: 'responder' })[0]!.id, { approve: true });
 * await lead.receive(wire.shift());
 * console.log((await reply).state); // approved
 * ```
 */
export function createCorrelator(options: CorrelatorOptions): Correlator {
  const self = options.self;
  if (typeof self !== 'string' || self.length === 0) {
    throw new CorrelateError('invalid_options', 'A correlator needs a non-empty "self"', {
      details: { self },
    });
  }
  const clock = options.clock ?? systemClock;
  const store = options.store;
  const prefix = options.keyPrefix ?? `correlate:${self}:`;
  const nextId = options.generateId ?? compactIds();
  const timeoutMs = assertTimeoutMs(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const humanTimeoutMs = assertTimeoutMs(
    options.humanTimeoutMs ?? DEFAULT_HUMAN_TIMEOUT_MS,
    'humanTimeoutMs',
  );
  const maxTotalMs = assertTimeoutMs(options.maxTotalMs ?? DEFAULT_MAX_TOTAL_MS, 'maxTotalMs');
  const maxPending = positiveInteger(options.maxPending, DEFAULT_MAX_PENDING, 'maxPending');
  const retainMs = positiveInteger(options.retainSettledMs, DEFAULT_RETAIN_SETTLED_MS, 'retainSettledMs', 0);
  const maxSettled = positiveInteger(options.maxSettled, DEFAULT_MAX_SETTLED, 'maxSettled', 0);
  const storeRetainMs = Math.max(retainMs, MIN_STORE_RETAIN_MS);
  const protocols = new Map<string, Protocol>();
  for (const protocol of options.protocols) {
    const known = protocols.get(protocol.name);
    if (known !== undefined && known !== protocol) {
      throw new CorrelateError('invalid_options', `Two protocols are named "${protocol.name}"`, {
        details: { protocol: protocol.name },
      });
    }
    protocols.set(protocol.name, protocol);
  }

  const queue = createDeadlineQueue({ clock });
  const events = createEmitter<CorrelatorEvents>();
  const outgoing = new Map<string, Outgoing>();
  const settled = new SettledLog<Outgoing>(retainMs, maxSettled);
  const waiters = new Map<string, Waiter[]>();
  const handlers = new Map<string, Set<(request: TrackedRequest) => void>>();
  const refusals: Partial<Record<RefusalCode, number>> = {};
  let sweepHandle: DeadlineHandle | undefined;
  let closed = false;

  function send(message: CorrelateMessage): void {
    options.send(message);
  }

  function refuse(refusal: Omit<Refusal, 'ok'>): Refusal {
    refusals[refusal.code] = (refusals[refusal.code] ?? 0) + 1;
    const result: Refusal = { ok: false, ...refusal };
    events.emit('refused', result);
    return result;
  }

  function scheduleSweep(dueAt: number): void {
    if (sweepHandle === undefined && retainMs > 0) sweepHandle = queue.add(dueAt, sweep);
  }

  function sweep(): void {
    sweepHandle = undefined;
    const now = clock.now();
    const a = settled.sweep(now) ?? Number.POSITIVE_INFINITY;
    const b = responder.sweep(now) ?? Number.POSITIVE_INFINITY;
    if (a !== b || a !== Number.POSITIVE_INFINITY) scheduleSweep(Math.min(a, b));
  }

  const responder = createResponder({
    self,
    clock,
    queue,
    events,
    protocols,
    maxPending,
    maxTotalMs,
    retainMs,
    maxSettled,
    send,
    refuse,
    scheduleSweep,
    isClosed: () => closed,
  });

  const key = (id: string): string => prefix + id;

  // ── the requester side ──────────────────────────────────────────────────────────────────────

  function start(
    protocol: Protocol,
    input: Parameters<Correlator['request']>[1],
    value: unknown,
  ): Promise<Reply> {
    const signal = input.signal;
    if (signal?.aborted) return Promise.reject(cancelledError(undefined, signal.reason));
    const human = input.waitingOnHuman === true;
    const ms =
      input.timeoutMs !== undefined
        ? assertTimeoutMs(input.timeoutMs, 'timeoutMs')
        : human
          ? (protocol.humanTimeoutMs ?? humanTimeoutMs)
          : (protocol.timeoutMs ?? timeoutMs);
    const now = clock.now();
    const maxAt = now + (protocol.maxTotalMs ?? maxTotalMs);
    const id = nextId();
    if (outgoing.has(id) || settled.items.has(id)) {
      throw new CorrelateError('invalid_options', `generateId returned "${id}", an id already in use`, {
        details: { id },
      });
    }
    const record = new Outgoing(
      id,
      protocol,
      self,
      input.to,
      value,
      now,
      Math.min(now + ms, maxAt),
      maxAt,
      ms,
      human,
    );
    const promise = new Promise<Reply>((resolve, reject) => {
      record.resolve = resolve;
      record.reject = reject;
    });
    record.signal = signal;
    outgoing.set(id, record);
    if (store === undefined) launch(record);
    else void persistThenLaunch(record);
    return promise;
  }

  function arm(record: Outgoing, at = record.deadlineAt): void {
    if (record.deadline !== undefined) queue.remove(record.deadline);
    record.deadline = queue.add(at, () => onDeadline(record));
  }

  function launch(record: Outgoing): void {
    arm(record);
    const signal = record.signal;
    if (signal !== undefined) {
      if (signal.aborted) {
        void settle(record, 'cancel', { error: cancelledError(record, signal.reason) });
        return;
      }
      record.onAbort = () => void settle(record, 'cancel', { error: cancelledError(record, signal.reason) });
      signal.addEventListener('abort', record.onAbort, { once: true });
    }
    try {
      send({
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
      void settle(record, 'cancel', { reason: 'send_failed', error });
    }
  }

  function onDeadline(record: Outgoing): void {
    record.deadline = undefined;
    void settle(record, 'expire', {});
  }

  /** The one way a requester record settles: reply, deadline, abort, cancel and failure all come here. */
  function settle(record: Outgoing, event: RequestEvent, outcome: Outcome): boolean | Promise<boolean> {
    const to = nextState(record.state, event);
    if (to === undefined || closed) return false;
    if (store === undefined) {
      finish(record, to, outcome, false);
      return true;
    }
    return commit(record, event, to, outcome);
  }

  function finish(record: Outgoing, to: RequestState, outcome: Outcome, remote: boolean): void {
    if (record.state !== 'pending') return;
    record.state = to;
    record.settledAt = outcome.settledAt ?? clock.now();
    if (outcome.reason !== undefined) record.reason = outcome.reason;
    if (outcome.response !== undefined) record.response = outcome.response;
    if (record.deadline !== undefined) queue.remove(record.deadline);
    record.deadline = undefined;
    if (record.onAbort !== undefined) record.signal?.removeEventListener('abort', record.onAbort);
    record.signal = undefined;
    record.onAbort = undefined;
    outgoing.delete(record.id);
    settled.add(record);
    scheduleSweep(record.settledAt + retainMs);
    const { resolve, reject } = record;
    record.resolve = undefined;
    record.reject = undefined;
    const list = waiters.get(record.id);
    if (list !== undefined) waiters.delete(record.id);
    if (to === 'approved' || to === 'rejected') {
      if (resolve !== undefined || list !== undefined) {
        const reply = toReply(record);
        resolve?.(reply);
        for (const waiter of list ?? []) settleWaiter(waiter, reply, undefined);
      }
    } else {
      reject?.(outcome.error ?? failure(record));
      for (const waiter of list ?? []) settleWaiter(waiter, undefined, failure(record));
    }
    if (events.listenerCount('settled') > 0) events.emit('settled', { request: toTracked(record), remote });
    if (!remote) runHandlers(record);
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

  function failure(record: Outgoing): CorrelateError {
    if (record.state === 'expired') {
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
    return cancelledError(record, undefined);
  }

  function cancelledError(record: Outgoing | undefined, cause: unknown): CorrelateError {
    return new CorrelateError('cancelled', `The request${record ? ` "${record.id}"` : ''} was cancelled`, {
      details:
        record === undefined
          ? {}
          : { requestId: record.id, protocol: record.protocol.name, reason: record.reason },
      cause,
    });
  }

  function settleWaiter(waiter: Waiter, reply: Reply | undefined, error: unknown): void {
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (reply !== undefined) waiter.resolve(reply);
    else waiter.reject(error);
  }

  function refusalFor(record: Outgoing, message: CorrelateMessage): Refusal {
    const code =
      record.state === 'expired' ? 'late' : record.state === 'pending' ? 'store_error' : 'duplicate';
    return refuse({
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

  async function load(id: string): Promise<Outgoing | undefined> {
    const entry = await (store as NonNullable<typeof store>).getEntry(key(id));
    const stored = entry === undefined ? undefined : decode(entry.value);
    const protocol = stored === undefined ? undefined : protocols.get(stored.protocol);
    if (entry === undefined || stored === undefined || protocol === undefined) return undefined;
    const raced = outgoing.get(id) ?? settled.items.get(id);
    return raced ?? adopt(fromStored(stored, protocol, entry.version));
  }

  function adopt(record: Outgoing): Outgoing {
    if (record.state === 'pending') {
      outgoing.set(record.id, record);
      arm(record);
    } else {
      settled.add(record);
      scheduleSweep(record.settledAt + retainMs);
    }
    return record;
  }

  /** A reply or progress note; synchronous unless the store must be read or a schema is async. */
  function onReply(message: ResponseMessage | ProgressMessage): ReceiveResult | Promise<ReceiveResult> {
    const known = outgoing.get(message.request_id) ?? settled.items.get(message.request_id);
    if (known !== undefined || store === undefined) return withRecord(known, message);
    return load(message.request_id).then(
      (record) => withRecord(record, message),
      (error: unknown) => {
        events.emit('error', { code: 'store_error', requestId: message.request_id, error });
        return refuse({ ...about(message), code: 'store_error', message: 'The store could not be read' });
      },
    );
  }

  function withRecord(
    record: Outgoing | undefined,
    message: ResponseMessage | ProgressMessage,
  ): ReceiveResult | Promise<ReceiveResult> {
    if (record === undefined) {
      return refuse({
        ...about(message),
        code: 'unknown_request',
        message: `No request "${message.request_id}"`,
      });
    }
    if (message.from !== record.to) {
      return refuse({
        ...about(message),
        code: 'wrong_sender',
        state: record.state,
        message: `Request "${record.id}" was sent to "${record.to}", not "${message.from}"`,
      });
    }
    if (message.protocol !== record.protocol.name) {
      return refuse({
        ...about(message),
        code: 'protocol_mismatch',
        state: record.state,
        message: `Request "${record.id}" is a ${record.protocol.name} request, not ${message.protocol}`,
      });
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
      return refuse({
        ...about(message),
        code: 'invalid_response',
        state: record.state,
        issues: checked.issues,
        message: `The response to "${record.id}" does not match the ${protocol.name} schema; the request stays pending`,
      });
    }
    let decision: ReturnType<Protocol['decide']>;
    try {
      decision = protocol.decide(checked.value);
    } catch (error) {
      return refuse({
        ...about(message),
        code: 'invalid_response',
        state: record.state,
        message: `decide() of ${protocol.name} threw: ${String(error)}`,
      });
    }
    const done = settle(record, decision.approve ? 'approve' : 'reject', {
      response: checked.value,
      reason: decision.reason,
    });
    const result = (ok: boolean): ReceiveResult =>
      ok
        ? { ok: true, kind: 'response', requestId: record.id, state: record.state }
        : refusalFor(record, message);
    return isPromise(done) ? done.then(result) : result(done);
  }

  async function onProgress(record: Outgoing, message: ProgressMessage): Promise<ReceiveResult> {
    const human = record.human || message.waiting_on_human === true;
    const extendMs = human
      ? Math.max(record.timeoutMs, record.protocol.humanTimeoutMs ?? humanTimeoutMs)
      : record.timeoutMs;
    const deadlineAt = Math.max(Math.min(clock.now() + extendMs, record.maxDeadlineAt), record.deadlineAt);
    if (store !== undefined && record.version !== null) {
      const written = await write(
        record,
        encode(record, { deadlineAt, human }),
        record.maxDeadlineAt - clock.now() + storeRetainMs,
      );
      if (!written) return refusalFor(record, message);
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

  // ── the durable side ────────────────────────────────────────────────────────────────────────

  async function persistThenLaunch(record: Outgoing): Promise<void> {
    record.busy = true;
    try {
      const result = await (store as NonNullable<typeof store>).compareAndSet(
        key(record.id),
        null,
        encode(record),
        {
          ttlMs: record.maxDeadlineAt - record.createdAt + storeRetainMs,
        },
      );
      if (!result.ok) throw new Error(`The key "${key(record.id)}" already exists`);
      record.version = result.version;
    } catch (cause) {
      record.busy = false;
      if (closed || record.state !== 'pending') return;
      outgoing.delete(record.id);
      events.emit('error', { code: 'store_error', requestId: record.id, error: cause });
      record.reject?.(
        new CorrelateError('store_error', `Request "${record.id}" could not be written to the store`, {
          details: { requestId: record.id },
          cause,
        }),
      );
      return;
    }
    record.busy = false;
    if (!closed) launch(record);
  }

  /** Compare-and-set of this record; false when another instance changed it first (then reconciled). */
  async function write(
    record: Outgoing,
    value: ReturnType<typeof encode> | undefined,
    ttlMs: number,
  ): Promise<boolean> {
    const target = store as NonNullable<typeof store>;
    record.busy = true;
    try {
      const result = await target.compareAndSet(key(record.id), record.version, value, { ttlMs });
      record.busy = false;
      if (result.ok) {
        record.version = result.version;
        return true;
      }
    } catch (error) {
      record.busy = false;
      events.emit('error', { code: 'store_error', requestId: record.id, error });
      return false;
    }
    await reconcile(record);
    return false;
  }

  async function commit(
    record: Outgoing,
    event: RequestEvent,
    to: RequestState,
    outcome: Outcome,
  ): Promise<boolean> {
    const settledAt = clock.now();
    const value = encode(record, {
      state: to,
      settledAt,
      reason: outcome.reason,
      response: outcome.response,
    });
    const written = await write(record, value, storeRetainMs);
    if (written) {
      finish(record, to, { ...outcome, settledAt }, false);
      return true;
    }
    if (record.state === 'pending' && !closed) {
      if (event === 'cancel')
        finish(record, to, { ...outcome, settledAt }, true); // the caller gave up; not committed
      else if (event === 'expire' && record.deadline === undefined) arm(record, clock.now() + RETRY_MS);
    }
    return false;
  }

  /** Brings a local record in line with the store after another instance wrote it. */
  async function reconcile(record: Outgoing): Promise<void> {
    let entry: Awaited<ReturnType<NonNullable<typeof store>['getEntry']>>;
    try {
      entry = await (store as NonNullable<typeof store>).getEntry(key(record.id));
    } catch (error) {
      events.emit('error', { code: 'store_error', requestId: record.id, error });
      if (record.state === 'pending' && !closed) arm(record, clock.now() + RETRY_MS);
      return;
    }
    if (record.state !== 'pending' || closed) return;
    const stored = entry === undefined ? undefined : decode(entry.value);
    if (entry === undefined || stored === undefined) {
      finish(record, 'expired', { reason: 'the stored record is gone' }, true);
      return;
    }
    record.version = entry.version;
    if (stored.state !== 'pending') {
      finish(
        record,
        stored.state,
        { reason: stored.reason, response: stored.response, settledAt: stored.settledAt },
        true,
      );
      return;
    }
    const deadlineAt = record.deadlineAt;
    applyStored(record, stored);
    if (record.deadline === undefined || record.deadlineAt !== deadlineAt) arm(record);
  }

  function onChange(change: StoreChange): void {
    const record = outgoing.get(change.key.slice(prefix.length));
    if (record === undefined || record.busy || closed) return;
    if (change.version !== null && change.version === record.version) return;
    void reconcile(record);
  }

  const unwatch = store?.watch?.(prefix, onChange);

  function receive(raw: unknown): ReceiveResult | Promise<ReceiveResult> {
    if (closed) return refuse({ code: 'closed', message: `Correlator "${self}" is closed` });
    const message = parseMessage(raw);
    if (typeof message === 'string') return refuse({ code: 'malformed', message });
    if (message.to !== self) {
      return refuse({
        ...about(message),
        code: 'wrong_recipient',
        message: `The message is for "${message.to}", not "${self}"`,
      });
    }
    return message.kind === 'request' ? responder.onRequest(message) : onReply(message);
  }

  // ── the API ─────────────────────────────────────────────────────────────────────────────────

  function closedError(): CorrelateError {
    return new CorrelateError('closed', `Correlator "${self}" is closed`, { details: { self } });
  }

  return {
    self,
    request(protocol, input) {
      try {
        if (closed) throw closedError();
        const registered = protocols.get(protocol.name);
        if (registered !== protocol) {
          throw new CorrelateError(
            'unknown_protocol',
            `Protocol "${protocol.name}" is not registered with this correlator`,
            {
              details: { protocol: protocol.name },
            },
          );
        }
        if (typeof input.to !== 'string' || input.to.length === 0) {
          throw new CorrelateError('invalid_options', 'A request needs a non-empty "to"', {
            details: { to: input.to },
          });
        }
        if (outgoing.size >= maxPending) {
          throw new CorrelateError(
            'too_many_pending',
            `Correlator "${self}" already has ${maxPending} pending requests`,
            {
              details: { limit: maxPending, protocol: protocol.name },
            },
          );
        }
        const checked = check(protocol.request, input.payload);
        const go = (result: Awaited<typeof checked>): Promise<Reply> => {
          if (!result.ok) {
            throw new CorrelateError(
              'invalid_payload',
              `The payload does not match the ${protocol.name} request schema`,
              {
                details: {
                  protocol: protocol.name,
                  issues: result.issues,
                  missingFields: result.missingFields,
                },
              },
            );
          }
          if (closed) throw closedError();
          return start(protocol, input, result.value);
        };
        // The protocol's types tie the reply to its response schema; the record holds it as unknown.
        return (isPromise(checked) ? checked.then(go) : go(checked)) as Promise<Reply<never>>;
      } catch (error) {
        return Promise.reject(error);
      }
    },

    receive(raw) {
      let result: ReceiveResult | Promise<ReceiveResult>;
      try {
        result = receive(raw);
      } catch (error) {
        // Nothing a peer sends may throw into the transport; a bug here is still reported.
        events.emit('error', { code: 'handler_failed', error });
        result = refuse({ code: 'malformed', message: `The message could not be handled: ${String(error)}` });
      }
      return isPromise(result) ? result : Promise.resolve(result);
    },

    respond: (id, response) => responder.respond(id, response),
    progress: (id, progressOptions) => responder.progress(id, progressOptions),

    async cancel(id, reason) {
      const record = outgoing.get(id);
      if (record === undefined || closed) return false;
      const result = settle(record, 'cancel', { reason, error: undefined });
      return isPromise(result) ? result : result;
    },

    async waitFor(id, waitOptions = {}) {
      if (closed) throw closedError();
      let record = outgoing.get(id) ?? settled.items.get(id);
      if (record === undefined && store !== undefined) {
        try {
          record = await load(id);
        } catch (cause) {
          throw new CorrelateError('store_error', `Request "${id}" could not be read from the store`, {
            details: { requestId: id },
            cause,
          });
        }
        if (closed) throw closedError();
      }
      if (record === undefined) {
        throw new CorrelateError('unknown_request', `No request "${id}" here`, {
          details: { requestId: id },
        });
      }
      if (record.state === 'approved' || record.state === 'rejected') return toReply(record);
      if (record.state !== 'pending') throw failure(record);
      const signal = waitOptions.signal;
      if (signal?.aborted) throw cancelledError(record, signal.reason);
      const pending = record;
      return new Promise<Reply>((resolve, reject) => {
        const onAbort =
          signal === undefined
            ? undefined
            : () => {
                const list = waiters.get(id);
                const index = list?.indexOf(waiter) ?? -1;
                if (index >= 0) list?.splice(index, 1);
                reject(cancelledError(pending, signal.reason));
              };
        const waiter: Waiter = { resolve, reject, signal, onAbort };
        if (onAbort !== undefined) signal?.addEventListener('abort', onAbort, { once: true });
        const list = waiters.get(id);
        if (list === undefined) waiters.set(id, [waiter]);
        else list.push(waiter);
      });
    },

    handle(protocol, handler) {
      const name = typeof protocol === 'string' ? protocol : protocol.name;
      let set = handlers.get(name);
      if (set === undefined) {
        set = new Set();
        handlers.set(name, set);
      }
      const entry = handler as (request: TrackedRequest) => void; // the response was checked by this protocol's schema
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },

    async restore() {
      if (store === undefined || closed) return 0;
      let count = 0;
      for await (const entry of store.list(prefix)) {
        const id = entry.key.slice(prefix.length);
        const stored = decode(entry.value);
        const protocol = stored === undefined ? undefined : protocols.get(stored.protocol);
        if (stored === undefined || protocol === undefined || outgoing.has(id) || settled.items.has(id))
          continue;
        const record = adopt(fromStored(stored, protocol, entry.version));
        if (record.state === 'pending') count++;
      }
      return count;
    },

    get(id) {
      const record = outgoing.get(id) ?? settled.items.get(id);
      return record === undefined ? responder.get(id) : toTracked(record);
    },

    list(filter = {}) {
      const out: TrackedRequest[] = [];
      if (filter.role !== 'responder') {
        for (const record of [...outgoing.values(), ...settled.items.values()]) out.push(toTracked(record));
      }
      if (filter.role !== 'requester') out.push(...responder.list());
      return out.filter(
        (r) =>
          (filter.protocol === undefined || r.protocol === filter.protocol) &&
          (filter.state === undefined || r.state === filter.state),
      );
    },

    stats() {
      return {
        pending: outgoing.size,
        incoming: responder.pendingCount(),
        settled: settled.items.size + responder.settledCount(),
        refused: { ...refusals },
      };
    },

    on: (event, listener) => events.on(event, listener),

    close() {
      if (closed) return;
      closed = true;
      unwatch?.();
      for (const record of outgoing.values()) {
        if (record.onAbort !== undefined) record.signal?.removeEventListener('abort', record.onAbort);
        record.reject?.(closedError());
        for (const waiter of waiters.get(record.id) ?? []) settleWaiter(waiter, undefined, closedError());
      }
      outgoing.clear();
      waiters.clear();
      settled.clear();
      responder.clear();
      queue.clear();
      sweepHandle = undefined;
    },
  };
}

/** The fields of a refusal that name the message it refuses. */
export function about(message: CorrelateMessage): Pick<Refusal, 'requestId' | 'kind' | 'from' | 'protocol'> {
  return {
    requestId: message.request_id,
    kind: message.kind,
    from: message.from,
    protocol: message.protocol,
  };
}
