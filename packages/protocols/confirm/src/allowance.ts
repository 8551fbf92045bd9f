// The rules of standing allowances, pure: what a confirmed "always allow" grants, which later
// requests it covers (the same session, action name and approver policy), and whether its granter
// may still answer them. The gate's runner stores grants under `allowanceScope`; @parley/restate
// keeps them in a session's Virtual Object. The step decides the rest: an `always` answer confirms
// with `allowUntil`, and `admit` confirms a request a granter covers (`standing_allowance`).
import type { ConfirmDecision } from './decision.js';
import type { ApproverPolicy } from './outcomes.js';
import { mayAnswer } from './internal/approvers.js';

/**
 * A standing allowance: who granted it, when, by which decision, under which approver policy.
 *
 * @example
 * ```ts
 * import type { StandingAllowance } from '@parley/confirm';
 *
 * const allowance: StandingAllowance = { grantedBy: 'U1', grantedAt: 0, decisionId: 'c1', approvers: 'requester', requester: 'U1' };
 * ```
 */
export interface StandingAllowance {
  readonly grantedBy: string;
  readonly grantedAt: number;
  readonly decisionId: string;
  readonly approvers: ApproverPolicy;
  readonly requester: string;
}

/**
 * What the allowance rules read of a stored confirmation: its id, session, action name and approver
 * policy (a confirmation record is one).
 *
 * @example
 * ```ts
 * import { allowanceScope, type AllowanceView } from '@parley/confirm';
 *
 * const view: AllowanceView = { id: 'c1', sessionKey: 'slack:T1:C1', action: { name: 'deploy' }, approvers: 'any', requester: 'U1' };
 * console.log(allowanceScope(view) === allowanceScope({ ...view, id: 'c2' })); // true
 * ```
 */
export interface AllowanceView {
  readonly id: string;
  readonly sessionKey: string;
  readonly action: { readonly name: string };
  readonly approvers: ApproverPolicy;
  readonly requester: string;
}

/**
 * Names what a standing allowance covers, purely: the confirmation's session, its action's name
 * and its approver policy (the requester under `requester`, `any`, or the sorted approvers). An
 * allowance granted for one confirmation covers another only when both have the same scope; the
 * action's arguments (its digest) may differ.
 *
 * @example
 * ```ts
 * import { allowanceScope, createConfirmation } from '@parley/confirm';
 *
 * const request = { sessionKey: 'slack:T1:C1', action: { name: 'deploy', args: { v: 1 } }, summary: 'Deploy', requester: 'U1' };
 * const first = createConfirmation(request, { id: 'c1', now: 0 }).record;
 * const again = createConfirmation({ ...request, action: { name: 'deploy', args: { v: 2 } } }, { id: 'c2', now: 0 }).record;
 * console.log(allowanceScope(first) === allowanceScope(again)); // true
 * ```
 */
export function allowanceScope(record: AllowanceView): string {
  return `${record.sessionKey}\u0000${record.action.name}\u0000${policyKey(record)}`;
}

/**
 * The standing allowance a decision grants, purely: one for a confirmation confirmed with
 * `allowUntil` (an `always` answer while `standingAllowanceMs` is set), granted by the person
 * who answered; `undefined` for any other decision.
 *
 * @example
 * ```ts
 * import { allowanceOf, createConfirmation } from '@parley/confirm';
 *
 * const request = { sessionKey: 'slack:T1:C1', action: { name: 'deploy', args: {} }, summary: 'Deploy', requester: 'U1' };
 * const { record } = createConfirmation(request, { id: 'c1', now: 0 });
 * const decision = { id: 'c1', outcome: 'confirmed', reason: 'reply', decidedBy: 'U1', decidedAt: 5, allowUntil: 60_005 } as const;
 * console.log(allowanceOf(decision, record)?.grantedBy); // U1
 * ```
 */
export function allowanceOf(
  decision: Pick<ConfirmDecision, 'outcome' | 'allowUntil' | 'decidedBy' | 'decidedAt'>,
  record: AllowanceView,
): StandingAllowance | undefined {
  if (decision.outcome !== 'confirmed' || decision.allowUntil === undefined) return undefined;
  if (decision.decidedBy === undefined) return undefined; // `always` comes only from a reply or click, which name the user
  return {
    grantedBy: decision.decidedBy,
    grantedAt: decision.decidedAt,
    decisionId: record.id,
    approvers: record.approvers,
    requester: record.requester,
  };
}

/**
 * Who a stored allowance in a confirmation's scope lets confirm it at once, purely: its granter
 * when the granter may answer this confirmation under its approver policy, otherwise `null` (no
 * allowance stored, or its granter may not answer: the request is prompted). Feed the answer to
 * the step's `admit` as `grant`.
 *
 * @example
 * ```ts
 * import { allowanceCovers, createConfirmation } from '@parley/confirm';
 *
 * const request = { sessionKey: 'slack:T1:C1', action: { name: 'deploy', args: {} }, summary: 'Deploy', requester: 'U1' };
 * const { record } = createConfirmation(request, { id: 'c2', now: 0 });
 * console.log(allowanceCovers(record, 'U1'), allowanceCovers(record, 'U2'), allowanceCovers(record, undefined)); // U1 null null
 * ```
 */
export function allowanceCovers(record: AllowanceView, grantedBy: string | undefined): string | null {
  return grantedBy !== undefined && mayAnswer(record, grantedBy) ? grantedBy : null;
}

/** The approver policy an allowance was granted under, as scope text. */
function policyKey(record: AllowanceView): string {
  const policy = record.approvers;
  if (policy === 'requester') return `requester\u0000${record.requester}`;
  if (policy === 'any') return 'any';
  return `list\u0000${JSON.stringify([...new Set(policy)].sort())}`;
}
