// The gate's defaults, and the outcomes and reasons a decision can carry.

/**
 * How long a confirmation waits for a reply unless told otherwise: 5 minutes.
 *
 * @example
 * ```ts
 * import { DEFAULT_CONFIRM_TIMEOUT_MS } from '@parley/confirm';
 *
 * console.log(DEFAULT_CONFIRM_TIMEOUT_MS); // 300000
 * ```
 */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 300_000;

/**
 * How many confirmations a gate holds at once unless told otherwise (`maxPending`): 10 000.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_PENDING_CONFIRMATIONS } from '@parley/confirm';
 *
 * console.log(DEFAULT_MAX_PENDING_CONFIRMATIONS); // 10000
 * ```
 */
export const DEFAULT_MAX_PENDING_CONFIRMATIONS = 10_000;

/**
 * How long after a decision its approvers' answers are still absorbed (`afterDecisionMs`): 30 s.
 *
 * @example
 * ```ts
 * import { DEFAULT_AFTER_DECISION_MS } from '@parley/confirm';
 *
 * console.log(DEFAULT_AFTER_DECISION_MS); // 30000
 * ```
 */
export const DEFAULT_AFTER_DECISION_MS = 30_000;

/**
 * The longest summary a prompt shows whole: 500 characters. A longer one is shortened with a
 * visible "… N more characters" marker and followed by the arguments key by key.
 *
 * @example
 * ```ts
 * import { MAX_SUMMARY_LENGTH } from '@parley/confirm';
 *
 * console.log(MAX_SUMMARY_LENGTH); // 500
 * ```
 */
export const MAX_SUMMARY_LENGTH = 500;

/**
 * The outcomes of a confirmation. Only `confirmed` authorises the action.
 *
 * @example
 * ```ts
 * import { CONFIRM_OUTCOMES } from '@parley/confirm';
 *
 * console.log(CONFIRM_OUTCOMES.length); // 6
 * ```
 */
export const CONFIRM_OUTCOMES = [
  'confirmed',
  'cancelled',
  'timed_out',
  'superseded',
  'aborted',
  'refused',
] as const;

/**
 * One of {@link CONFIRM_OUTCOMES}.
 *
 * @example
 * ```ts
 * import type { ConfirmOutcome } from '@parley/confirm';
 *
 * const outcome: ConfirmOutcome = 'timed_out';
 * ```
 */
export type ConfirmOutcome = (typeof CONFIRM_OUTCOMES)[number];

/**
 * Why a decision came out as it did; the README lists each with its outcome.
 *
 * @example
 * ```ts
 * import { DECISION_REASONS } from '@parley/confirm';
 *
 * console.log(DECISION_REASONS.includes('step_mismatch')); // true
 * ```
 */
export const DECISION_REASONS = [
  'reply',
  'card',
  'unrecognised',
  'step_mismatch',
  'standing_allowance',
  'timeout',
  'superseded',
  'signal',
  'closed',
  'prompt_failed',
  'session_busy',
  'expired',
  'too_many_pending',
  'not_recorded',
] as const;

/**
 * One of {@link DECISION_REASONS}.
 *
 * @example
 * ```ts
 * import type { DecisionReason } from '@parley/confirm';
 *
 * const reason: DecisionReason = 'card';
 * ```
 */
export type DecisionReason = (typeof DECISION_REASONS)[number];

/**
 * Who may answer a confirmation: only the user who triggered the action (`requester`, the
 * default), any member of the chat (`any`), or the listed user ids.
 *
 * @example
 * ```ts
 * import type { ApproverPolicy } from '@parley/confirm';
 *
 * const admins: ApproverPolicy = ['ou_admin_1', 'ou_admin_2'];
 * ```
 */
export type ApproverPolicy = 'requester' | 'any' | readonly string[];
