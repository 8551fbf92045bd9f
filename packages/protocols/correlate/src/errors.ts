import { ParleyError } from '@parley/core';

/**
 * The codes {@link CorrelateError} can carry: how a request's promise fails, and how the API is misused.
 *
 * @example
 * ```ts
 * import { CORRELATE_ERROR_CODES } from '@parley/correlate';
 *
 * console.log(CORRELATE_ERROR_CODES.includes('timeout')); // true
 * ```
 */
export const CORRELATE_ERROR_CODES = [
  'timeout',
  'cancelled',
  'closed',
  'too_many_pending',
  'unknown_protocol',
  'unknown_request',
  'invalid_payload',
  'invalid_response',
  'not_pending',
  'invalid_argument',
  'send_failed',
  'store_failed',
] as const;

/**
 * A code of {@link CorrelateError}.
 *
 * @example
 * ```ts
 * import type { CorrelateErrorCode } from '@parley/correlate';
 *
 * const code: CorrelateErrorCode = 'too_many_pending';
 * ```
 */
export type CorrelateErrorCode = (typeof CORRELATE_ERROR_CODES)[number];

/**
 * The error `@parley/correlate` rejects or throws with: a request that expired, was cancelled or
 * closed, and misuse of the API (an unknown protocol, a payload that fails its schema, too many
 * pending requests). A peer's bad message is never an error: it is a refusal, reported as data.
 *
 * @example
 * ```ts
 * import { CorrelateError } from '@parley/correlate';
 * import { isParleyError } from '@parley/core';
 *
 * const err = new CorrelateError('timeout', 'No reply within 30000 ms', { details: { requestId: 'r1' } });
 * console.log(isParleyError(err, 'timeout'), err.details.requestId); // true r1
 * ```
 */
export class CorrelateError extends ParleyError<CorrelateErrorCode> {}

/**
 * The codes of a refused incoming message: a reply, request or progress note that must never
 * settle or start anything. Reported by `receive()` and the `refused` event, never thrown.
 *
 * @example
 * ```ts
 * import { CORRELATE_REFUSAL_CODES } from '@parley/correlate';
 *
 * console.log(CORRELATE_REFUSAL_CODES.includes('wrong_sender')); // true
 * ```
 */
export const CORRELATE_REFUSAL_CODES = [
  'malformed',
  'wrong_recipient',
  'unknown_protocol',
  'protocol_mismatch',
  'unknown_request',
  'duplicate',
  'late',
  'wrong_sender',
  'invalid_response',
  'invalid_payload',
  'duplicate_request',
  'too_many_pending',
  'store_failed',
  'closed',
] as const;

/**
 * A code of a refused incoming message; see {@link CORRELATE_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { CorrelateRefusalCode } from '@parley/correlate';
 *
 * const code: CorrelateRefusalCode = 'late';
 * ```
 */
export type CorrelateRefusalCode = (typeof CORRELATE_REFUSAL_CODES)[number];
