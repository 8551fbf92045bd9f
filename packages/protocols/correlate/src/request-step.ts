import type { RequestEvent, RequestState } from '@parley/fsm';
import { nextState } from './internal/util.js';

/**
 * What an event does to a request: the event that applies and the state it leads to.
 *
 * @example
 * ```ts
 * import type { RequestStep } from '@parley/correlate';
 *
 * const step: RequestStep = { event: 'expire', to: 'expired' };
 * ```
 */
export interface RequestStep {
  readonly event: RequestEvent;
  readonly to: RequestState;
}

/**
 * The one rule of a settlement, pure: what `event` does to a request in `state` whose absolute
 * deadline is `deadlineAt`, at `now`. The deadline comes first: at or past it every event (a
 * reply, a cancellation, an abort) is an expiry, whatever the timers did — a late timer, a
 * restart, a record read from the store. Undefined when the request accepts nothing (it is final).
 * Use it to host correlated requests on another runner (a durable engine) with the same rule.
 *
 * @example
 * ```ts
 * import { requestStep } from '@parley/correlate';
 *
 * console.log(requestStep('pending', 1_000, 'approve', 999)); // { event: 'approve', to: 'approved' }
 * console.log(requestStep('pending', 1_000, 'approve', 1_000)); // { event: 'expire', to: 'expired' }
 * console.log(requestStep('approved', 1_000, 'reject', 10)); // undefined
 * ```
 */
export function requestStep(
  state: RequestState,
  deadlineAt: number,
  event: RequestEvent,
  now: number,
): RequestStep | undefined {
  const applied = eventAt(deadlineAt, event, now);
  const to = nextState(state, applied);
  return to === undefined ? undefined : { event: applied, to };
}

/**
 * The event that applies at `now` (the first half of {@link requestStep}, without its result
 * object): at or past the deadline every event is an expiry. Internal: the settle paths of both
 * sides run it on every reply, then ask `nextState` for the state.
 */
export function eventAt(deadlineAt: number, event: RequestEvent, now: number): RequestEvent {
  return now >= deadlineAt ? 'expire' : event;
}
