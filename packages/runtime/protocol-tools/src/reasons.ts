/**
 * Why a protocol's request tool refuses a call: the reasons its tool definition declares, which the
 * model reads back in `tool_feedback`.
 *
 * @example
 * ```ts
 * import { REQUEST_TOOL_REASONS } from '@parley/protocol-tools';
 *
 * console.log(REQUEST_TOOL_REASONS.includes('already_pending')); // true
 * ```
 */
export const REQUEST_TOOL_REASONS = [
  'unknown_peer',
  'already_pending',
  'invalid_payload',
  'too_many_pending',
  'send_failed',
  'closed',
] as const;

/**
 * A reason of {@link REQUEST_TOOL_REASONS}.
 *
 * @example
 * ```ts
 * import type { RequestToolReason } from '@parley/protocol-tools';
 *
 * const reason: RequestToolReason = 'unknown_peer';
 * ```
 */
export type RequestToolReason = (typeof REQUEST_TOOL_REASONS)[number];

/**
 * Why a protocol's respond tool refuses a call: an id the model made up, a request already
 * settled (or expired: decided when the answer is given), another protocol's request, an answer
 * that fails the protocol's response schema.
 *
 * @example
 * ```ts
 * import { RESPOND_TOOL_REASONS } from '@parley/protocol-tools';
 *
 * console.log(RESPOND_TOOL_REASONS.includes('not_pending')); // true
 * ```
 */
export const RESPOND_TOOL_REASONS = [
  'unknown_request',
  'not_pending',
  'wrong_protocol',
  'invalid_response',
  'send_failed',
  'closed',
] as const;

/**
 * A reason of {@link RESPOND_TOOL_REASONS}.
 *
 * @example
 * ```ts
 * import type { RespondToolReason } from '@parley/protocol-tools';
 *
 * const reason: RespondToolReason = 'not_pending';
 * ```
 */
export type RespondToolReason = (typeof RESPOND_TOOL_REASONS)[number];
