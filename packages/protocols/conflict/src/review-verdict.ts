// The review gate's verdict rule as one pure function: what a reviewer's answer means.
import { isRecord } from './internal/checks.js';
import { REVIEW_SEVERITIES, REVIEW_VERDICTS, type ReviewVerdict } from './verdict.js';

/**
 * What {@link judgeReviewVerdict} made of a reviewer's answer: pass it, revise it (naming the
 * `revise_target`, if any), or escalate it (`invalid_verdict` with what is wrong, `blocked`, or
 * `unknown_target` when the target is not one of the allowed roles).
 *
 * @example
 * ```ts
 * import type { ReviewJudgement } from '@parley/conflict';
 *
 * const judged: ReviewJudgement = { kind: 'escalate', reason: 'invalid_verdict', message: 'the verdict is not an object' };
 * ```
 */
export type ReviewJudgement =
  | { readonly kind: 'pass'; readonly verdict: ReviewVerdict }
  | { readonly kind: 'revise'; readonly verdict: ReviewVerdict; readonly target: string | undefined }
  | {
      readonly kind: 'escalate';
      readonly reason: 'blocked' | 'unknown_target';
      readonly verdict: ReviewVerdict;
    }
  | {
      readonly kind: 'escalate';
      readonly reason: 'invalid_verdict';
      readonly verdict?: undefined;
      readonly message: string;
    };

/**
 * Judges a reviewer's answer as the review gate does, purely: a well-formed `pass` passes, `block`
 * escalates, a `revise` with issues asks for a revision of `revise_target` (escalated
 * `unknown_target` when `targets` is given and does not list it), anything else escalates
 * `invalid_verdict`. The round limit is the caller's: it counts the revisions it ran.
 *
 * `createReviewGate` runs it on every answer; `@parley/restate` runs it in a pipeline workflow.
 *
 * @example
 * ```ts
 * import { judgeReviewVerdict } from '@parley/conflict';
 *
 * const answer = { verdict: 'revise', revise_target: 'writer', issues: [{ description: 'no stop loss' }] };
 * console.log(judgeReviewVerdict(answer).kind); // revise
 * console.log(judgeReviewVerdict(answer, ['editor']).kind); // escalate
 * console.log(judgeReviewVerdict({ verdict: 'maybe' }).kind); // escalate
 * ```
 */
export function judgeReviewVerdict(answer: unknown, targets?: readonly string[]): ReviewJudgement {
  const checked = checkVerdict(answer);
  if (typeof checked === 'string') return { kind: 'escalate', reason: 'invalid_verdict', message: checked };
  if (checked.verdict === 'pass') return { kind: 'pass', verdict: checked };
  if (checked.verdict === 'block') return { kind: 'escalate', reason: 'blocked', verdict: checked };
  const target = checked.revise_target;
  if (targets !== undefined && target !== undefined && !targets.includes(target)) {
    return { kind: 'escalate', reason: 'unknown_target', verdict: checked };
  }
  return { kind: 'revise', verdict: checked, target };
}

/** Returns the verdict as plain data, or what is wrong with it. */
function checkVerdict(value: unknown): ReviewVerdict | string {
  if (!isRecord(value)) return 'the verdict is not an object';
  const verdict = value['verdict'];
  if (!REVIEW_VERDICTS.includes(verdict as ReviewVerdict['verdict'])) {
    return `"verdict" is ${JSON.stringify(verdict) ?? 'undefined'}, not pass, revise or block`;
  }
  const issues = value['issues'];
  if (issues !== undefined && !Array.isArray(issues)) return '"issues" is not a list';
  for (const issue of issues ?? []) {
    if (!isRecord(issue) || typeof issue['description'] !== 'string') return 'an issue has no description';
    const severity = issue['severity'];
    if (
      severity !== undefined &&
      !REVIEW_SEVERITIES.includes(severity as (typeof REVIEW_SEVERITIES)[number])
    ) {
      return `an issue has severity ${JSON.stringify(severity)}`;
    }
  }
  if (verdict === 'revise' && (issues === undefined || issues.length === 0))
    return 'a revise verdict has no issues';
  for (const key of ['revise_target', 'summary'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') return `"${key}" is not text`;
  }
  if (value['score'] !== undefined && typeof value['score'] !== 'number') return '"score" is not a number';
  return value as unknown as ReviewVerdict; // every field checked above
}
