import type { ConfirmOutcome, DecisionReason } from '../outcomes.js';
import type { GateContext } from './context.js';
import type { Entry } from './records.js';
import { absorbsAfter } from './step-decided.js';

// What a settled confirmation leaves here: the memory of it that absorbs its approvers' late
// answers for `afterDecisionMs` (whether it does is the pure `absorbsAfter` rule).

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
  if (ctx.afterDecisionMs === 0 || !absorbsAfter(entry, reason)) return;
  const { lately } = ctx;
  lately.delete(entry.record.sessionKey);
  lately.set(entry.record.sessionKey, {
    id: entry.record.id,
    requester: entry.record.requester,
    approvers: entry.record.approvers,
    steps: entry.record.steps ?? undefined,
    until: ctx.clock.now() + ctx.afterDecisionMs,
    outcome,
    address: entry.address,
    action: entry.record.action,
    summary: entry.record.summary,
  });
  if (lately.size > ctx.admitRules.maxPending) lately.delete(lately.keys().next().value as string); // the oldest
}
