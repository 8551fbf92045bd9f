// Why the gate refuses an authorization, a card click or a reply.

/**
 * Why {@link ConfirmGate.authorize} refused.
 *
 * @example
 * ```ts
 * import { AUTHORIZE_REFUSAL_CODES } from '@parley/confirm';
 *
 * console.log(AUTHORIZE_REFUSAL_CODES.includes('action_mismatch')); // true
 * ```
 */
export const AUTHORIZE_REFUSAL_CODES = [
  'unknown_decision',
  'not_confirmed',
  'action_mismatch',
  'already_used',
  'not_recorded',
] as const;

/**
 * Why a card click was refused (it is consumed either way).
 *
 * @example
 * ```ts
 * import { CARD_REFUSAL_CODES } from '@parley/confirm';
 *
 * console.log(CARD_REFUSAL_CODES.includes('forged')); // true
 * ```
 */
export const CARD_REFUSAL_CODES = [
  'forged',
  'unknown_confirmation',
  'settled',
  'not_allowed',
  'session_mismatch',
  'steps_required',
  'before_delivery',
] as const;

/**
 * Why an inbound message of a session with a pending (or just decided) confirmation was not
 * counted as a reply: `not_allowed`, `bot`, `stale_reply` (arrived after delivery but placed
 * before or level with the prompt by the platform's order, or a redelivered event that already
 * counted), `before_delivery` (reached the gate before the prompt's send began, or during its
 * flight without a platform order after the prompt), `after_decision` (an answer to a
 * confirmation decided moments ago).
 *
 * @example
 * ```ts
 * import { IGNORED_REPLY_CODES } from '@parley/confirm';
 *
 * console.log(IGNORED_REPLY_CODES.includes('before_delivery')); // true
 * ```
 */
export const IGNORED_REPLY_CODES = [
  'not_allowed',
  'bot',
  'stale_reply',
  'before_delivery',
  'after_decision',
] as const;
