// The settlement of a stored request as one pure kernel step: the deadline first, then the event, once.
import type { KernelStep } from '@parley/core';
import type { RequestEvent, RequestState } from '@parley/fsm';
import { requestStep } from '../request-step.js';
import type { StoredRequest } from './stored-request.js';

/** What a settlement step found on the freshly read record. */
export type Settlement =
  | { readonly kind: 'gone' }
  | { readonly kind: 'final'; readonly stored: StoredRequest }
  | { readonly kind: 'settled'; readonly to: RequestState; readonly own: boolean; readonly at: number };

export interface SettleEvent {
  readonly event: RequestEvent;
  readonly response: unknown;
  readonly reason: string | undefined;
}

/**
 * The settlement rule on the stored record, kept `retainMs` after it settles: what the event does
 * (an expiry at or past the stored deadline, whatever the timers did), or what the store holds already.
 */
export function settlementStep(retainMs: number): KernelStep<StoredRequest, SettleEvent, Settlement> {
  return (current, e, now) => {
    if (current === undefined) return { value: undefined, effects: [{ kind: 'gone' }] };
    const next = requestStep(current.state, current.deadlineAt, e.event, now);
    if (next === undefined) return { value: current, effects: [{ kind: 'final', stored: current }] };
    const own = next.event === e.event;
    const { response: _r, reason: _s, ...rest } = current;
    const value: StoredRequest = {
      ...rest,
      state: next.to,
      settledAt: now,
      ...(own && e.reason !== undefined ? { reason: e.reason } : {}),
      ...(own && e.response !== undefined ? { response: e.response } : {}),
    };
    return {
      value,
      effects: [{ kind: 'settled', to: next.to, own, at: now }],
      deadlineAt: now + retainMs,
    };
  };
}
