// The record of one correlated request, as the Restate object keeps it in its state (plain JSON).
import type { RequestState } from '@parley/fsm';

/**
 * A correlated request as its Restate object stores it: who sent it to whom, its state and its
 * absolute deadline. Returned by the object's `get` handler and by {@link awaitRequest}.
 *
 * @example
 * ```ts
 * import type { RequestRecord } from '@parley/restate';
 *
 * const record: RequestRecord = {
 *   id: 'r1', protocol: 'shutdown', from: 'lead', to: 'alice', state: 'approved',
 *   payload: { reason: 'done' }, response: { approve: true }, createdAt: 0, deadlineAt: 30_000, settledAt: 5,
 * };
 * ```
 */
export interface RequestRecord {
  readonly id: string;
  readonly protocol: string;
  readonly from: string;
  readonly to: string;
  readonly state: RequestState;
  readonly payload: unknown;
  readonly response?: unknown;
  readonly reason?: string;
  /** When the request was opened (epoch ms, Restate's journaled clock). */
  readonly createdAt: number;
  /** The absolute deadline (epoch ms); at or past it every event is an expiry. */
  readonly deadlineAt: number;
  readonly settledAt?: number;
}

/** The record after its settlement step: the new state, and the response and reason when they settled it. */
export function settleRecord(
  record: RequestRecord,
  to: RequestState,
  now: number,
  own: { readonly response?: unknown; readonly reason?: string } | undefined,
): RequestRecord {
  const { response: _r, reason: _s, ...rest } = record;
  return {
    ...rest,
    state: to,
    settledAt: now,
    ...(own?.response === undefined ? {} : { response: own.response }),
    ...(own?.reason === undefined ? {} : { reason: own.reason }),
  };
}
