import type { JsonValue } from '@parley/core';
import type { ConfirmAction } from './digest.js';
import type { ApproverPolicy, ConfirmOutcome, DecisionReason } from './outcomes.js';
import type { AUTHORIZE_REFUSAL_CODES } from './refusal-codes.js';

// What is asked and what is decided: a request, its steps, the decision, a pending confirmation.

/**
 * One step of an exact multi-step confirmation: the prompt sent and the exact answer required
 * (compared after NFKC and trimming; case and punctuation count).
 *
 * @example
 * ```ts
 * import type { ConfirmStep } from '@parley/confirm';
 *
 * const step: ConfirmStep = { prompt: 'This may be high-impact. Confirm #1 (YES).', expect: 'YES' };
 * ```
 */
export interface ConfirmStep {
  readonly prompt: string;
  readonly expect: string;
}

/**
 * What {@link ConfirmGate.request} takes: the session to ask in, the action, a summary for
 * people, who triggered it, and optionally a timeout, a signal, exact steps and approvers.
 *
 * @example
 * ```ts
 * import type { ConfirmRequest } from '@parley/confirm';
 *
 * const request: ConfirmRequest = {
 *   sessionKey: 'feishu:oc_1',
 *   action: { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } },
 *   summary: 'DELETE FROM orders WHERE status = 1',
 *   requester: 'ou_alice',
 * };
 * ```
 */
export interface ConfirmRequest {
  readonly sessionKey: string;
  readonly action: ConfirmAction;
  /**
   * Shown in the prompt after the action name and a short digest. Longer than
   * {@link MAX_SUMMARY_LENGTH} characters it is shortened visibly ("… N more characters") and the
   * arguments are shown key by key in canonical order; see the README ("What a prompt shows").
   */
  readonly summary: string;
  /** The user id whose message triggered the action. */
  readonly requester: string;
  /** Milliseconds to wait once prompted; the gate's `timeoutMs` by default. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Exact answers required in order, instead of one confirm word. */
  readonly steps?: readonly ConfirmStep[];
  /** Overrides the gate's approver policy for this request. */
  readonly approvers?: ApproverPolicy;
}

/**
 * The settled result of a confirmation, also what the audit trail records. Plain JSON.
 *
 * @example
 * ```ts
 * import type { ConfirmDecision } from '@parley/confirm';
 *
 * function explain(decision: ConfirmDecision): string {
 *   return `${decision.outcome} (${decision.reason}) by ${decision.decidedBy ?? 'nobody'}`;
 * }
 * ```
 */
export interface ConfirmDecision {
  readonly id: string;
  readonly sessionKey: string;
  readonly action: { readonly name: string; readonly args: JsonValue; readonly digest: string };
  readonly summary: string;
  readonly requester: string;
  readonly outcome: ConfirmOutcome;
  readonly reason: DecisionReason;
  /** The user whose reply or click decided, or who granted the standing allowance. */
  readonly decidedBy?: string;
  /** The normalised reply that decided, when one did. */
  readonly reply?: string;
  /** For `step_mismatch`: the 1-based step that failed. */
  readonly failedStep?: number;
  /** When `always` was chosen: until when this action kind is allowed in this session. */
  readonly allowUntil?: number;
  /** The absolute deadline of the confirmation (absent when it was never prompted). */
  readonly expiresAt?: number;
  readonly requestedAt: number;
  readonly promptedAt?: number;
  readonly decidedAt: number;
}

/**
 * The result of {@link ConfirmGate.authorize}.
 *
 * @example
 * ```ts
 * import type { AuthorizeResult } from '@parley/confirm';
 *
 * const refused: AuthorizeResult = { ok: false, code: 'action_mismatch' };
 * ```
 */
export type AuthorizeResult =
  | { readonly ok: true; readonly decision: ConfirmDecision }
  | { readonly ok: false; readonly code: (typeof AUTHORIZE_REFUSAL_CODES)[number] };

/**
 * A pending confirmation as {@link ConfirmGate.pending} lists it.
 *
 * @example
 * ```ts
 * import type { PendingConfirmation } from '@parley/confirm';
 *
 * const view: PendingConfirmation = {
 *   id: 'cfm_1', sessionKey: 'feishu:oc_1', actionName: 'sql.delete', requester: 'ou_a',
 *   state: 'prompted', step: 0, expiresAt: 300_000, delivered: true, restored: false, remote: false,
 * };
 * ```
 */
export interface PendingConfirmation {
  readonly id: string;
  readonly sessionKey: string;
  readonly actionName: string;
  readonly requester: string;
  /** `queued` behind another confirmation of the session, or `prompted`. */
  readonly state: 'queued' | 'prompted';
  /** Steps already answered (multi-step). */
  readonly step: number;
  readonly expiresAt?: number;
  /** The current prompt's `send` resolved: replies written from then on count. */
  readonly delivered: boolean;
  /** Loaded from the store after a restart (or another gate's, loaded here). */
  readonly restored: boolean;
  /**
   * Prompted by another gate on the same store and loaded here from the store because a reply,
   * click or its deadline reached this gate; the other gate holds the waiting `request`.
   */
  readonly remote: boolean;
}

/**
 * A confirmation pending on another gate of the same store, as {@link ConfirmGate.followed} lists
 * it: followed by a compact entry, its record not held here.
 *
 * @example
 * ```ts
 * import type { FollowedConfirmation } from '@parley/confirm';
 *
 * const followed: FollowedConfirmation = { id: 'cfm_1', sessionKey: 'feishu:oc_1', delivered: true };
 * ```
 */
export interface FollowedConfirmation {
  /** The confirmation's id. */
  readonly id: string;
  /** The session it was prompted in: a message of it makes this gate load the record. */
  readonly sessionKey: string;
  /** This gate learnt that the current prompt's send resolved: replies arriving from then on count. */
  readonly delivered: boolean;
}
