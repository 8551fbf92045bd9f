import type { IdGenerator, ValidationResult } from '@parley/core';
import { CorrelateError } from '../errors.js';
import type { Protocol } from '../protocol.js';
import type { Reply, RequestOptions, RequestPromise } from '../request-types.js';
import type { Shared } from './context.js';
import type { Durable } from './durable-types.js';
import { extraOf, Outgoing, type Tracker } from './records.js';
import { assertAdmissible, assertValidPayload, requestTiming } from './request-admission.js';
import { check, isPromise, withId } from './util.js';
import type { Waiters } from './waiters.js';

/** What starting a request needs of its requester; made once per requester. */
export interface StartHost {
  readonly ctx: Shared;
  readonly nextId: IdGenerator;
  /** `nextId` is the built-in generator (a random prefix and a counter): it never repeats, so no lookup. */
  readonly uniqueIds: boolean;
  readonly timeoutMs: number;
  readonly humanTimeoutMs: number;
  readonly tracker: Tracker<Outgoing>;
  readonly waiters: Waiters;
  readonly durable: Durable | undefined;
  readonly launch: (record: Outgoing) => void;
  /** Requests whose async payload check is still running: they hold a place under `maxPending`. */
  reserved: number;
}

type Resolve = (value: Reply | PromiseLike<Reply>) => void;
let captured: Resolve | undefined;
/** One executor for every request's promise: no closure per request (the record takes `captured`). */
const capture = (resolve: Resolve): void => {
  captured = resolve;
};

/** Starts a request: its id first, so every promise carries one, then the checks, the record and the send. */
export function startRequest(
  host: StartHost,
  protocol: Protocol,
  input: RequestOptions<unknown>,
): RequestPromise<Reply> {
  let id = '';
  let result: Promise<Reply>;
  try {
    id = host.nextId();
    assertFree(host, id);
    result = begin(host, id, protocol, input);
  } catch (error) {
    result = Promise.reject(error);
  }
  return withId(result, id);
}

/** A generator other than the built-in one may repeat an id: one in use is refused. */
function assertFree(host: StartHost, id: string): void {
  if (!host.uniqueIds && host.tracker.has(id)) {
    throw new CorrelateError('invalid_argument', `generateId returned "${id}", an id already in use`, {
      details: { id },
    });
  }
}

function begin(
  host: StartHost,
  id: string,
  protocol: Protocol,
  input: RequestOptions<unknown>,
): Promise<Reply> {
  assertAdmissible(host.ctx, protocol, input, host.tracker.pending + host.reserved);
  const checked = check(protocol.request, input.payload);
  if (!isPromise(checked)) return start(host, id, protocol, input, checked);
  // The place is taken now, not when the schema answers: the limit holds across the await.
  host.reserved++;
  return checked.then(
    (result) => {
      host.reserved--;
      return start(host, id, protocol, input, result);
    },
    (error: unknown) => {
      host.reserved--;
      throw error;
    },
  );
}

function start(
  host: StartHost,
  id: string,
  protocol: Protocol,
  input: RequestOptions<unknown>,
  checked: ValidationResult<unknown>,
): Promise<Reply> {
  const { ctx, tracker } = host;
  assertValidPayload(protocol, checked);
  if (ctx.isClosed()) throw ctx.closedError();
  const signal = input.signal;
  if (signal?.aborted) throw host.waiters.cancelled(undefined, signal.reason);
  const now = ctx.clock.now();
  const timing = requestTiming(ctx, protocol, input, host, now);
  assertFree(host, id); // again: a request may have taken it while the schema was awaited
  const record = new Outgoing(
    id,
    protocol,
    ctx.self,
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
  if (host.durable === undefined) host.launch(record);
  else void host.durable.persistThenLaunch(record);
  return promise;
}
