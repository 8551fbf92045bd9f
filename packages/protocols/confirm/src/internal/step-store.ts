import type { StepResult } from '@parley/core';
import type { ConfirmDecision } from '../decision.js';
import type { DecisionRecord, GrantRecord, ConfirmationRecord } from './records.js';
import { authorizeRule } from './step-decided.js';

// The rules of the stored records, as the kernel's pure steps `(record, event, now) → (record,
// effects)`: the kernel runs them on a fresh read and commits the result with one compare-and-set
// (re-running them when another writer came first), so they decide on the stored version, never on
// a copy. The runner (persistence.ts) is the only caller.

/** How long a pending record outlives its deadline in the store. */
export const PENDING_KEPT_MS = 86_400_000;

/** A change of a pending record: write the next version (made from `base`), or drop it (decided). */
export type PendingEvent =
  | { readonly type: 'write'; readonly base: number | null; readonly record: ConfirmationRecord }
  | { readonly type: 'drop' };

/** `lost`: another gate wrote a newer version first (`write_lost_race`); nothing was written. */
export type PendingEffect = 'written' | 'lost';

/**
 * A pending record is only ever replaced by the next version of the one the change was made from
 * (`rev` = base + 1, no record for a first write); otherwise the write is lost and the caller
 * adopts what is stored.
 */
export function pendingStep(
  current: ConfirmationRecord | undefined,
  event: PendingEvent,
): StepResult<ConfirmationRecord, PendingEffect> {
  if (event.type === 'drop') return { value: undefined, effects: [] };
  const { base, record } = event;
  if ((current?.rev ?? null) !== base || record.rev !== (base ?? 0) + 1)
    return { value: current, effects: ['lost'] };
  return { value: record, effects: ['written'], deadlineAt: record.expiresAt + PENDING_KEPT_MS };
}

/** Record a decision (kept `keptMs`), or use it for an action (`authorize`). */
export type DecisionEvent =
  | { readonly type: 'decide'; readonly decision: ConfirmDecision; readonly keptMs: number }
  | { readonly type: 'use'; readonly digest: string; readonly keptMs: number };

/** What became of it: recorded, another gate's recorded first, used, or the use refused. */
export type DecisionEffect =
  | { readonly type: 'recorded' }
  | { readonly type: 'exists'; readonly record: DecisionRecord }
  | ReturnType<typeof authorizeRule>;

/** The first decision recorded stands (first writer wins); a use is the `authorize` rule on the stored decision. */
export function decisionStep(
  current: DecisionRecord | undefined,
  event: DecisionEvent,
  now: number,
): StepResult<DecisionRecord, DecisionEffect> {
  if (event.type === 'decide') {
    if (current !== undefined) return { value: current, effects: [{ type: 'exists', record: current }] };
    return { value: event.decision, effects: [{ type: 'recorded' }], deadlineAt: now + event.keptMs };
  }
  const verdict = authorizeRule(current, event.digest, now);
  return verdict.ok
    ? { value: verdict.record, effects: [verdict], deadlineAt: now + event.keptMs }
    : { value: current, effects: [verdict] };
}

/** A standing allowance is granted (again) for `keptMs` from now. */
export function grantStep(
  _current: GrantRecord | undefined,
  event: { readonly grant: GrantRecord; readonly keptMs: number },
  now: number,
): StepResult<GrantRecord, never> {
  return { value: event.grant, effects: [], deadlineAt: now + event.keptMs };
}
