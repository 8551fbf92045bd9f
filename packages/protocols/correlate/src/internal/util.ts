import {
  generateId,
  type IdGenerator,
  isParleyError,
  type StandardSchemaV1,
  type ValidationResult,
  validate,
  validateAsync,
} from '@parley/core';
import {
  type MachineSnapshot,
  type RequestContext,
  type RequestEvent,
  requestMachine,
  type RequestState,
} from '@parley/fsm';
import { CorrelateError } from '../errors.js';
import type { CorrelateMessage } from '../messages.js';
import type { CorrelateRefusal } from '../receive-result.js';
import type { RequestPromise } from '../request-types.js';

/** Validates with a sync schema at sync cost, and falls back to the async path only when needed. */
export function check(
  schema: StandardSchemaV1,
  value: unknown,
): ValidationResult<unknown> | Promise<ValidationResult<unknown>> {
  try {
    return validate(schema, value);
  } catch (error) {
    if (isParleyError(error, 'async_schema')) return validateAsync(schema, value);
    throw error;
  }
}

/** Gives a request's promise its id (one own property; the promise is otherwise untouched). */
export function withId<T>(promise: Promise<T>, id: string): RequestPromise<T> {
  const tagged = promise as Promise<T> & { id: string };
  tagged.id = id;
  return tagged;
}

/** A promise from any realm or library: something with a `then` method. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** Compact unique ids: 8 random characters for the instance, then a base-36 counter. */
export function compactIds(): IdGenerator {
  const base = generateId().slice(0, 8);
  let n = 0;
  return () => base + (n++).toString(36);
}

const STATES: readonly RequestState[] = ['pending', 'approved', 'rejected', 'expired', 'cancelled'];
const EVENTS: readonly RequestEvent[] = ['approve', 'reject', 'expire', 'cancel'];
type Table = Record<RequestState, Partial<Record<RequestEvent, RequestState>>>;
let table: Table | undefined;

/**
 * The state `event` leads to from `state` by the shared request machine, or undefined when the
 * machine refuses it (a final state accepts nothing). The machine is the single authority on the
 * lifecycle: it has no guards and is pure, so its answer for every (state, event) pair is asked
 * once, on first use, and kept in a plain table (two property reads per settle).
 */
export function nextState(state: RequestState, event: RequestEvent): RequestState | undefined {
  table ??= buildTable();
  return table[state][event];
}

function buildTable(): Table {
  const pending = requestMachine.initialSnapshot();
  // From pending the request machine accepts every event, so each of these transitions is taken.
  const after = (e: RequestEvent): MachineSnapshot<RequestState, RequestContext> =>
    (requestMachine.transition(pending, e) as { snapshot: typeof pending }).snapshot;
  const snapshots = {
    pending,
    approved: after('approve'),
    rejected: after('reject'),
    expired: after('expire'),
    cancelled: after('cancel'),
  };
  const built = {} as Table; // filled for every state just below
  for (const state of STATES) {
    const row: Partial<Record<RequestEvent, RequestState>> = {};
    for (const event of EVENTS) {
      const result = requestMachine.transition(snapshots[state], event);
      if (result.ok) row[event] = result.snapshot.state;
    }
    built[state] = row;
  }
  return built;
}

export function positiveInteger(value: number | undefined, fallback: number, name: string, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min) {
    throw new CorrelateError('invalid_argument', `${name} must be an integer ≥ ${min}, got ${String(n)}`, {
      details: { [name]: n },
    });
  }
  return n;
}

/** The fields of a refusal that name the message it refuses. */
export function about(
  message: CorrelateMessage,
): Pick<CorrelateRefusal, 'requestId' | 'kind' | 'from' | 'protocol'> {
  return {
    requestId: message.request_id,
    kind: message.kind,
    from: message.from,
    protocol: message.protocol,
  };
}
