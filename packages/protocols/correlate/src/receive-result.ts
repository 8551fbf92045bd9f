import type { ValidationIssue } from '@parley/core';
import type { RequestState } from '@parley/fsm';
import type { CorrelateRefusalCode } from './errors.js';
import type { CorrelateMessage } from './messages.js';

/**
 * What {@link Correlator.receive} returns: what the message did, or why it was refused.
 *
 * @example
 * ```ts
 * import type { ReceiveResult } from '@parley/correlate';
 *
 * function describe(result: ReceiveResult): string {
 *   return result.ok ? `${result.kind} ${result.requestId}` : `refused: ${result.code}`;
 * }
 * ```
 */
export type ReceiveResult =
  | {
      readonly ok: true;
      readonly kind: CorrelateMessage['kind'];
      readonly requestId: string;
      readonly state: RequestState;
    }
  | CorrelateRefusal;

/**
 * A refused incoming message, as `receive` returns it and the `refused` event carries it.
 *
 * @example
 * ```ts
 * import type { CorrelateRefusal } from '@parley/correlate';
 *
 * const refusal: CorrelateRefusal = { ok: false, code: 'unknown_request', requestId: 'nope', message: 'No request "nope"' };
 * ```
 */
export interface CorrelateRefusal {
  readonly ok: false;
  readonly code: CorrelateRefusalCode;
  readonly message: string;
  readonly requestId?: string;
  readonly kind?: CorrelateMessage['kind'];
  readonly from?: string;
  readonly protocol?: string;
  /** The state of the request the message named, when it is known. */
  readonly state?: RequestState;
  /** Why the payload or response failed its schema. */
  readonly issues?: readonly ValidationIssue[];
}
