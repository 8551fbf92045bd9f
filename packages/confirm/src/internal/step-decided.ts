import type { AuthorizeResult, ConfirmDecision, ConfirmStep } from '../decision.js';
import type { ApproverPolicy, ConfirmOutcome } from '../outcomes.js';
import { normalizeExact, parseReply } from '../vocabulary.js';
import type { DecisionRecord } from './records.js';
import { mayAnswer, type StepRules } from './step.js';

// The rules of a decided confirmation, pure like `step`: whether a recorded decision is consent
// (its deadline), whether it may run an action (`authorize`), and which later answers of its
// approvers are absorbed (`afterDecision`). The runner performs what they return.

/** A confirmation decided moments ago whose approvers' further answers are still absorbed. */
export interface Lately {
  readonly id: string;
  readonly requester: string;
  readonly approvers: ApproverPolicy;
  readonly steps: readonly ConfirmStep[] | undefined;
  /** Absorbs answers until then (the gate's clock). */
  readonly until: number;
  /** The outcome, when known here: the person is told it once ("already confirmed", …). */
  readonly outcome: ConfirmOutcome | undefined;
}

/**
 * The after-decision rule: a message of a session whose confirmation was decided within
 * `afterDecisionMs` (and whose prompt the person saw) is absorbed when it is an approver's answer
 * to it — a reply word, or a step's exact text — and goes on to the agent otherwise.
 */
export function afterDecision(
  lately: Lately,
  message: { readonly text: string; readonly senderId: string; readonly bot: boolean },
  now: number,
  rules: StepRules,
): 'absorb' | 'pass' | 'forget' {
  if (now >= lately.until) return 'forget';
  if (message.bot || !mayAnswer(lately, message.senderId)) return 'pass';
  const exact = normalizeExact(message.text);
  const isAnswer =
    parseReply(message.text, rules.vocabulary) !== 'unrecognised' ||
    (lately.steps?.some((item) => normalizeExact(item.expect) === exact) ?? false);
  return isAnswer ? 'absorb' : 'pass';
}

/**
 * The deadline rule for a recorded decision: a `confirmed` decided at or after the deadline it
 * records (by a replica or an older gate that did not check it) is not consent. A standing
 * allowance is never prompted, so it has no deadline.
 */
export function decidedInTime(
  decision: Pick<ConfirmDecision, 'outcome' | 'decidedAt' | 'expiresAt'>,
): boolean {
  return (
    decision.outcome !== 'confirmed' ||
    decision.expiresAt === undefined ||
    decision.decidedAt < decision.expiresAt
  );
}

/**
 * A recorded decision as it counts here: a `confirmed` decided at or after the deadline (the
 * decision's own, or `expiresAt` this gate knows when the decision records none) is `timed_out`.
 */
export function inTime(decision: ConfirmDecision, expiresAt: number | undefined): ConfirmDecision {
  const deadline = decision.expiresAt ?? expiresAt;
  const timely = decidedInTime(deadline === undefined ? decision : { ...decision, expiresAt: deadline });
  return timely ? decision : { ...decision, outcome: 'timed_out', reason: 'timeout' };
}

/**
 * The `authorize` rule: a recorded decision lets exactly its action run once, when it is a
 * `confirmed` decided in time and not used yet. Returns the refusal, or the record marked used
 * (the runner writes it with a compare-and-set, so a second use loses).
 */
export function authorizeRule(
  record: DecisionRecord | undefined,
  digest: string,
  now: number,
): Extract<AuthorizeResult, { ok: false }> | { readonly ok: true; readonly record: DecisionRecord } {
  if (record === undefined) return { ok: false, code: 'unknown_decision' };
  if (record.outcome !== 'confirmed' || !decidedInTime(record)) return { ok: false, code: 'not_confirmed' };
  if (record.action.digest !== digest) return { ok: false, code: 'action_mismatch' };
  if (record.usedAt !== undefined) return { ok: false, code: 'already_used' };
  return { ok: true, record: { ...record, usedAt: now } };
}
