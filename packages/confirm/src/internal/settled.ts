import type { ConfirmDecision } from '../decision.js';
import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type { GateContext } from './context.js';
import type { Entry } from './records.js';
import type { Extra } from './step.js';

// What a settled confirmation leaves: its decision, built from the entry, and the memory of it
// that absorbs its approvers' late answers for `afterDecisionMs`.

/**
 * Keeps a decided confirmation's approvers for `afterDecisionMs`, so their late answers are
 * absorbed — only when the person saw one of its prompts (after `prompt_failed` on the first
 * prompt, a 确认 is chat, not an answer).
 */
export function remember(
  ctx: GateContext,
  entry: Entry,
  outcome: ConfirmOutcome | undefined,
  reason: DecisionReason | undefined,
): void {
  // Seen: delivered, or sent and maybe shown (a crash mid-send); not when its send was refused
  // (a follower knows only the owner's reason: prompt_failed). Never seen: no answers to absorb.
  const seen = entry.seen || (entry.sentSeq !== undefined && !(entry.remote && reason === 'prompt_failed'));
  if (ctx.afterDecisionMs === 0 || !seen) return;
  const { lately } = ctx;
  lately.delete(entry.sessionKey);
  lately.set(entry.sessionKey, {
    id: entry.id,
    requester: entry.requester,
    approvers: entry.approvers,
    steps: entry.steps,
    until: ctx.clock.now() + ctx.afterDecisionMs,
    outcome,
    address: entry.address,
    action: entry.action,
    summary: entry.summary,
  });
  if (lately.size > ctx.maxPending) lately.delete(lately.keys().next().value as string); // the oldest
}

/** The decision this gate makes, built field by field (a literal with spreads is slow in V8). */
export function toDecisionOf(
  entry: Entry,
  outcome: ConfirmOutcome,
  reason: DecisionReason,
  extra: Extra | undefined,
  decidedAt: number,
): ConfirmDecision {
  const decision: Writable<ConfirmDecision> = {
    id: entry.id,
    sessionKey: entry.sessionKey,
    action: entry.action,
    summary: entry.summary,
    requester: entry.requester,
    outcome,
    reason,
    requestedAt: entry.requestedAt,
    decidedAt,
  };
  if (extra?.decidedBy !== undefined) decision.decidedBy = extra.decidedBy;
  if (extra?.reply !== undefined) decision.reply = extra.reply;
  if (extra?.failedStep !== undefined) decision.failedStep = extra.failedStep;
  if (extra?.allowUntil !== undefined) decision.allowUntil = extra.allowUntil;
  if (entry.state === 'prompted') {
    decision.promptedAt = entry.firstPromptedAt;
    // The window is timed by elapsed time here: while it is open, a wall clock stepped past the
    // stored deadline moves the recorded deadline with it, so the decision reads as in time.
    const expiresAt = entry.expiresAt as number; // every prompted entry has one
    decision.expiresAt = entry.windowOver ? expiresAt : Math.max(expiresAt, decidedAt + 1);
  }
  return decision;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };
