import type { AuthorizeResult, ConfirmDecision, ConfirmStep } from '../decision.js';
import type { ApproverPolicy, ConfirmOutcome, DecisionReason } from '../outcomes.js';
import { normalizeExact, parseReply } from '../vocabulary.js';
import type { DecisionRecord, ConfirmationRecord } from './records.js';
import type {
  AnswerRules,
  Confirmation,
  ConfirmationAnswer,
  ConfirmationTransition,
  ConfirmRules,
  DecisionDetails,
} from './confirmation.js';
import type { Draft } from './draft.js';
import { mayAnswer } from './step.js';

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
  rules: AnswerRules,
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
 * The after-decision rule's first half: answers are absorbed after the decision only when the
 * person may have seen a prompt of it — delivered, or sent and maybe shown (a crash mid-send); not
 * when its send was refused (a follower knows only the owner's reason: `prompt_failed`).
 */
export function absorbsAfter(
  view: { readonly seen: boolean; readonly sentSeq: number | undefined; readonly remote: boolean },
  reason: DecisionReason | undefined,
): boolean {
  return view.seen || (view.sentSeq !== undefined && !(view.remote && reason === 'prompt_failed'));
}

/** What a decision is built from: the confirmation's facts and its deadline's state (never `done`). */
export interface DecisionView {
  readonly record: Pick<
    ConfirmationRecord,
    'id' | 'sessionKey' | 'action' | 'summary' | 'requester' | 'requestedAt' | 'firstPromptedAt' | 'expiresAt'
  >;
  readonly state: Confirmation['state'];
  readonly windowOver: boolean;
}

/**
 * The decision a gate makes, built field by field (a literal with spreads is slow in V8); it
 * records the deadline it was decided under, which `decidedInTime` checks wherever it is read.
 */
export function toDecisionOf(
  c: DecisionView,
  outcome: ConfirmOutcome,
  reason: DecisionReason,
  extra: DecisionDetails | undefined,
  decidedAt: number,
): ConfirmDecision {
  const { record } = c;
  const decision: Draft<ConfirmDecision> = {
    id: record.id,
    sessionKey: record.sessionKey,
    action: record.action,
    summary: record.summary,
    requester: record.requester,
    outcome,
    reason,
    requestedAt: record.requestedAt,
    decidedAt,
  };
  if (extra?.decidedBy !== undefined) decision.decidedBy = extra.decidedBy;
  if (extra?.reply !== undefined) decision.reply = extra.reply;
  if (extra?.failedStep !== undefined) decision.failedStep = extra.failedStep;
  if (extra?.allowUntil !== undefined) decision.allowUntil = extra.allowUntil;
  if (c.state === 'prompted') {
    decision.promptedAt = record.firstPromptedAt;
    // The window is timed by elapsed time here: while it is open, a wall clock stepped past the
    // stored deadline moves the recorded deadline with it, so the decision reads as in time.
    const { expiresAt } = record;
    decision.expiresAt = c.windowOver ? expiresAt : Math.max(expiresAt, decidedAt + 1);
  }
  return decision;
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

/**
 * Whether its approvers' late answers are absorbed after the decision, until when and as which
 * outcome: only when the person may have seen one of its prompts (`absorbsAfter`).
 */
export function remembered(
  c: Confirmation,
  outcome: ConfirmOutcome | undefined,
  reason: DecisionReason | undefined,
  now: number,
  rules: ConfirmRules,
): Confirmation['after'] {
  const view = { seen: c.seen, sentSeq: c.sentSeq ?? undefined, remote: c.remote };
  if (rules.afterDecisionMs === 0 || !absorbsAfter(view, reason)) return null;
  return { until: now + rules.afterDecisionMs, outcome: outcome ?? null, told: false };
}

/**
 * A message in the session of a confirmation decided lately (the after-decision rule): an
 * approver's answer to it is consumed, and the person told once what was decided; anything
 * else goes on to the agent; past `afterDecisionMs` it is forgotten.
 */
export function afterwards(
  c: Confirmation,
  event: Extract<ConfirmationAnswer, { type: 'reply' }>,
  now: number,
  rules: ConfirmRules,
): ConfirmationTransition {
  const { after, record } = c;
  if (after === null) return { next: c, effects: [], result: { kind: 'pass' } };
  const lately = { ...record, steps: record.steps ?? undefined, until: after.until, outcome: undefined };
  const verdict = afterDecision(lately, event, now, rules);
  if (verdict === 'forget')
    return { next: { ...c, after: null }, effects: [{ type: 'forget' }], result: { kind: 'forget' } };
  if (verdict === 'pass') return { next: c, effects: [], result: { kind: 'pass' } };
  const result = { kind: 'ignore', code: 'after_decision' } as const;
  if (after.told || after.outcome === null) return { next: c, effects: [], result };
  const next = { ...c, after: { ...after, told: true } };
  return { next, effects: [{ type: 'late', outcome: after.outcome }], result };
}
