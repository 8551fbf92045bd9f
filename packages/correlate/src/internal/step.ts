import type { RequestEvent, RequestState } from '@parley/fsm';
import { nextState } from './util.js';

/** What an event does to a request: the event that applies and the state it leads to. */
export interface Step {
  readonly event: RequestEvent;
  readonly to: RequestState;
}

/**
 * The one rule of a settlement, pure: what `event` does to a request in `state` whose absolute
 * deadline is `deadlineAt`, at `now`. The deadline comes first: at or past it every event (a
 * reply, a cancellation, an abort) is an expiry, whatever the timers did — a late timer, a
 * restart, a record read from the store. Undefined when the request accepts nothing (it is final).
 */
export function step(
  state: RequestState,
  deadlineAt: number,
  event: RequestEvent,
  now: number,
): Step | undefined {
  const applied: RequestEvent = now >= deadlineAt ? 'expire' : event;
  const to = nextState(state, applied);
  return to === undefined ? undefined : { event: applied, to };
}
