import type { PlatformOrder } from '@parley/bus';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type { ConfirmationRecord } from './records.js';

// The rules of a confirmation's arrival and of its copies on other gates, pure like `step`:
// whether a new request is refused, confirmed by a standing allowance, prompted, queued or
// superseding (`admit`), and what a newer stored version of a followed record changes (`adopt`).
// The runner performs what they return.

/**
 * What the admission rule reads of a new request's gate and session: aborted, how many the gate
 * holds, closed, multi-step, the standing allowance (unread, none, or who granted it), whether the
 * session has a prompted confirmation and how many wait behind it.
 *
 * @example
 * ```ts
 * import type { AdmissionView } from '@parley/confirm';
 *
 * const view: AdmissionView = { aborted: false, held: 0, closed: false, multiStep: false, grant: 'unread', active: false, queued: 0 };
 * console.log(view.grant); // unread
 * ```
 */
export interface AdmissionView {
  /** The request's abort signal has fired. */
  readonly aborted: boolean;
  /** Confirmations this gate already holds (this one not counted). */
  readonly held: number;
  readonly closed: boolean;
  readonly multiStep: boolean;
  /**
   * Who granted the standing allowance covering the request: `'unread'` before the runner read
   * it, `null` when none covers it.
   */
  readonly grant: string | null | 'unread';
  /** The session has a prompted confirmation. */
  readonly active: boolean;
  /** Confirmations queued behind it. */
  readonly queued: number;
  /** The request could not be recorded in the gate's consent ledger (`ledger`): it is refused, never prompted. */
  readonly unrecorded?: boolean;
}

/**
 * The gate settings admission reads: `whenPending`, the queue and pending limits, and whether
 * standing allowances are granted. Part of {@link ConfirmRules}.
 *
 * @example
 * ```ts
 * import { type AdmissionRules, confirmRules } from '@parley/confirm';
 *
 * const admit: AdmissionRules = confirmRules({ whenPending: 'reject' }).admit;
 * console.log(admit.whenPending, admit.maxPending); // reject 10000
 * ```
 */
export interface AdmissionRules {
  readonly whenPending: 'queue' | 'reject' | 'supersede';
  readonly maxQueued: number;
  readonly maxPending: number;
  /** Standing allowances are granted (`standingAllowanceMs`). */
  readonly standing: boolean;
}

/**
 * What the admission rule decided for a new request: settle it at once (refused, aborted, or
 * confirmed by a standing allowance), read the standing allowance first, prompt it, queue it, or
 * supersede the session's prompted one.
 *
 * @example
 * ```ts
 * import type { ConfirmationAdmission } from '@parley/confirm';
 *
 * const admission: ConfirmationAdmission = { kind: 'queue' };
 * console.log(admission.kind); // queue
 * ```
 */
export type ConfirmationAdmission =
  | {
      readonly kind: 'settle';
      readonly outcome: ConfirmOutcome;
      readonly reason: DecisionReason;
      /** `false`: nothing is recorded (a flood writes nothing; close). */
      readonly record: boolean;
      readonly decidedBy?: string;
    }
  /** Read the standing allowance and admit again with it. */
  | { readonly kind: 'read_grant' }
  | { readonly kind: 'prompt' }
  | { readonly kind: 'queue' }
  /** Supersede the session's prompted confirmation and prompt this one. */
  | { readonly kind: 'supersede' };

/**
 * The admission rule: aborted by its signal, refused past `maxPending` (checked before the
 * allowance is read, so a flood reads and writes nothing), confirmed by a standing allowance,
 * prompted when its session is free, and otherwise queued, refused or superseding, as
 * `whenPending` says.
 */
export function admit(view: AdmissionView, rules: AdmissionRules): ConfirmationAdmission {
  if (view.aborted) return { kind: 'settle', outcome: 'aborted', reason: 'signal', record: true };
  if (view.unrecorded === true)
    return { kind: 'settle', outcome: 'refused', reason: 'not_recorded', record: false };
  if (view.grant === 'unread') {
    if (view.held >= rules.maxPending)
      return { kind: 'settle', outcome: 'refused', reason: 'too_many_pending', record: false };
    if (rules.standing && !view.multiStep) return { kind: 'read_grant' };
  } else if (view.grant !== null) {
    return {
      kind: 'settle',
      outcome: 'confirmed',
      reason: 'standing_allowance',
      record: true,
      decidedBy: view.grant,
    };
  }
  if (view.closed) return { kind: 'settle', outcome: 'aborted', reason: 'closed', record: false };
  if (!view.active) return { kind: 'prompt' };
  if (rules.whenPending === 'reject' || (rules.whenPending === 'queue' && view.queued >= rules.maxQueued))
    return { kind: 'settle', outcome: 'refused', reason: 'session_busy', record: true };
  return rules.whenPending === 'supersede' ? { kind: 'supersede' } : { kind: 'queue' };
}

/** What a followed (or own) confirmation's copy holds of its record, for `adopt`. */
export interface AdoptView {
  /** The `rev` of the record this gate last wrote or read. */
  readonly rev: number | undefined;
  readonly step: number;
  readonly reprompts: number;
  readonly promptedAt: number;
  /** This gate knows the current prompt delivered. */
  readonly delivered: boolean;
  readonly expiresAt: number | undefined;
}

/** What a stored version changes; `undefined` when it is not newer (a record is only replaced by a newer version of itself). */
export interface Adoption {
  /** A new prompt (next step or re-prompt) went out from another gate: unanswerable until its delivery is known. */
  readonly prompt?: Pick<ConfirmationRecord, 'step' | 'reprompts' | 'promptedAt'>;
  /** Its delivery is learnt now. */
  readonly delivered?: { readonly deliveredAt: number; readonly order: PlatformOrder | undefined };
  /** The deadline moved (the first prompt's delivery restarts the window). */
  readonly expiresAt?: number;
}

/** The replica-sync rule: what a stored version of a record changes here, if it is newer (a higher `rev`). */
export function adopt(view: AdoptView, record: ConfirmationRecord): Adoption | undefined {
  if (view.rev !== undefined && record.rev <= view.rev) return undefined;
  const prompt =
    record.step !== view.step || record.reprompts !== view.reprompts || record.promptedAt !== view.promptedAt
      ? { step: record.step, reprompts: record.reprompts, promptedAt: record.promptedAt }
      : undefined;
  const delivered =
    record.deliveredAt !== undefined && (prompt !== undefined || !view.delivered)
      ? { deliveredAt: record.deliveredAt, order: record.order }
      : undefined;
  return {
    ...(prompt === undefined ? {} : { prompt }),
    ...(delivered === undefined ? {} : { delivered }),
    ...(record.expiresAt === view.expiresAt ? {} : { expiresAt: record.expiresAt }),
  };
}
