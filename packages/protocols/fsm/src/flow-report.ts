import type { JsonValue } from '@parley/core';
import type { FlowIssue, FlowSnapshot, FlowSubmitResult } from './flow-types.js';

/**
 * One line saying what a flow decided about a submission, for a transcript, a log or an operator:
 * `✓ accepted → notify`, `✓ accepted → execute (next answer)`, `✓ failed, default taken → close`,
 * `✗ invalid_fields, retry: missing goal_type`, `✗ exit_failed, back → evidence: …`,
 * `✗ …, manual_review → queue unresolved: …`, `✗ flow_done: …`. Missing fields are named; other
 * issues follow with their path. Use it instead of formatting each result by hand; what the user is
 * told is the result's `message`, `notice` and `prompt`, not this line.
 *
 * @example
 * ```ts
 * import { createFlowSession, defineFlow, describeFlowResult } from '@parley/fsm';
 * import { z } from 'zod';
 *
 * const flow = defineFlow({
 *   id: 'goal',
 *   version: 1,
 *   steps: [{ name: 'goal', prompt: 'What outcome?', fields: z.object({ goal_type: z.string() }) }],
 * });
 * const session = createFlowSession(flow);
 * console.log(describeFlowResult(session.submit({}))); // ✗ invalid_fields, retry: missing goal_type
 * console.log(describeFlowResult(session.submit({ goal_type: 'delete' }))); // ✓ accepted → done
 * ```
 */
export function describeFlowResult(result: FlowSubmitResult<string, unknown>): string {
  if (result.ok) {
    const where = result.next === result.step ? `${result.step} (next answer)` : result.next;
    return `✓ ${result.notice === undefined ? 'accepted' : 'failed, default taken'} → ${where}`;
  }
  if (result.code === 'flow_done') return `✗ flow_done: ${result.message}`;
  const to = result.to === undefined ? '' : ` → ${result.to}`;
  const queue = result.queue === undefined ? '' : ` → queue ${result.queue}`;
  const { missingFields } = result;
  const why =
    missingFields.length === 0
      ? result.detail
      : [
          `missing ${missingFields.join(', ')}`,
          ...result.issues
            .filter((issue) => !missingFields.includes(issue.pathText))
            .map((issue) => `${issue.pathText}: ${issue.message}`),
          ...(result.code === 'exit_failed' ? [result.detail] : []),
        ].join('; ');
  return `✗ ${result.code}, ${result.action}${to}${queue}: ${why}`;
}

/**
 * The audit trail of a flow (plain JSON, ISO times): every transition, the failed answers counted,
 * the notices of `default` policies and the submissions recorded for manual review.
 *
 * @example
 * ```ts
 * import type { FlowAudit } from '@parley/fsm';
 *
 * const backs = (audit: FlowAudit) => audit.transitions.filter((t) => t.event === 'back').length;
 * ```
 */
export interface FlowAudit {
  readonly transitions: readonly {
    readonly at: string;
    readonly from: string;
    readonly to: string;
    readonly event: string;
  }[];
  /** Failed answers per step, as the snapshot's `attempts` counts them. */
  readonly failures: { readonly [step: string]: number };
  readonly notices: readonly { readonly step: string; readonly message: string; readonly at: string }[];
  readonly reviews: readonly {
    readonly step: string;
    readonly queue: string;
    readonly submitted: JsonValue;
    readonly issues: readonly FlowIssue[];
    readonly reason: string;
    readonly at: string;
  }[];
}

/**
 * The audit trail of a flow snapshot: what a host saves at close so the session can be reviewed
 * later (who moved where, when, what failed, what went to review). Times become ISO strings; the
 * snapshot's history is as long as its `historyLimit` kept it.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createFlowSession, defineFlow, toFlowAudit } from '@parley/fsm';
 * import { z } from 'zod';
 *
 * const flow = defineFlow({
 *   id: 'goal',
 *   version: 1,
 *   steps: [{ name: 'goal', prompt: 'What outcome?', fields: z.object({ goal_type: z.string() }) }],
 * });
 * const session = createFlowSession(flow, { clock: createManualClock({ now: Date.UTC(2026, 3, 15, 9) }) });
 * session.submit({});
 * session.submit({ goal_type: 'delete' });
 * const audit = toFlowAudit(session.snapshot());
 * console.log(audit.transitions); // [ { at: '2026-04-15T09:00:00.000Z', from: 'goal', to: 'done', event: 'submit' } ]
 * console.log(audit.failures); // { goal: 1 }
 * ```
 */
export function toFlowAudit(snapshot: FlowSnapshot<string, unknown>): FlowAudit {
  const iso = (at: number): string => new Date(at).toISOString();
  return {
    transitions: snapshot.history.map((h) => ({ at: iso(h.at), from: h.from, to: h.to, event: h.event })),
    failures: { ...snapshot.attempts },
    notices: snapshot.notices.map((n) => ({ step: n.step, message: n.message, at: iso(n.at) })),
    reviews: snapshot.reviews.map((r) => ({ ...r, at: iso(r.at) })),
  };
}
