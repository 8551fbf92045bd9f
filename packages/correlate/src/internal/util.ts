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

export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/** Compact unique ids: 8 random characters for the instance, then a base-36 counter. */
export function compactIds(): IdGenerator {
  const base = generateId().slice(0, 8);
  let n = 0;
  return () => base + (n++).toString(36);
}

const memo = new Map<RequestState, Map<RequestEvent, RequestState>>();
let snapshots: Record<RequestState, MachineSnapshot<RequestState, RequestContext>> | undefined;

/**
 * The state `event` leads to from `state` by the shared request machine, or undefined when the
 * machine refuses it (a final state accepts nothing). The machine is the single authority on the
 * lifecycle; its snapshots for each state are built once, on first use.
 */
export function nextState(state: RequestState, event: RequestEvent): RequestState | undefined {
  const known = memo.get(state)?.get(event);
  if (known !== undefined) return known;
  if (snapshots === undefined) {
    const pending = requestMachine.initialSnapshot();
    // From pending the request machine accepts every event, so each of these transitions is taken.
    const after = (e: RequestEvent) =>
      (requestMachine.transition(pending, e) as { snapshot: typeof pending }).snapshot;
    snapshots = {
      pending,
      approved: after('approve'),
      rejected: after('reject'),
      expired: after('expire'),
      cancelled: after('cancel'),
    };
  }
  // The request machine has no guards and is pure, so the answer for a (state, event) pair never changes.
  const result = requestMachine.transition(snapshots[state], event);
  if (!result.ok) return undefined;
  let byEvent = memo.get(state);
  if (byEvent === undefined) {
    byEvent = new Map();
    memo.set(state, byEvent);
  }
  byEvent.set(event, result.snapshot.state);
  return result.snapshot.state;
}

export function positiveInteger(value: number | undefined, fallback: number, name: string, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min) {
    throw new CorrelateError('invalid_options', `${name} must be an integer ≥ ${min}, got ${String(n)}`, {
      details: { [name]: n },
    });
  }
  return n;
}
