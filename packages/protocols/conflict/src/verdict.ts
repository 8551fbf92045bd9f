/**
 * The severities of a review issue, as in the reference `Review_Report.json`.
 *
 * @example
 * ```ts
 * import { REVIEW_SEVERITIES } from '@parley/conflict';
 *
 * console.log(REVIEW_SEVERITIES); // ['critical', 'major', 'minor']
 * ```
 */
export const REVIEW_SEVERITIES = ['critical', 'major', 'minor'] as const;

/**
 * One issue a reviewer raises (`Review_Report.json` → `issues[]`).
 *
 * @example
 * ```ts
 * import type { ReviewIssue } from '@parley/conflict';
 *
 * const issue: ReviewIssue = {
 *   severity: 'major',
 *   field: 'stop_loss',
 *   description: 'The stop loss is above the entry zone',
 *   suggestion: 'Put it below 61 200',
 * };
 * ```
 */
export interface ReviewIssue {
  readonly severity?: (typeof REVIEW_SEVERITIES)[number] | undefined;
  readonly field?: string | undefined;
  readonly description: string;
  readonly suggestion?: string | undefined;
}

/**
 * The verdicts a reviewer can return.
 *
 * @example
 * ```ts
 * import { REVIEW_VERDICTS } from '@parley/conflict';
 *
 * console.log(REVIEW_VERDICTS); // ['pass', 'revise', 'block']
 * ```
 */
export const REVIEW_VERDICTS = ['pass', 'revise', 'block'] as const;

/**
 * A reviewer's answer: `pass`, `revise` (with issues and the role to re-run) or `block`; field
 * names as in `Review_Report.json`.
 *
 * @example
 * ```ts
 * import type { ReviewVerdict } from '@parley/conflict';
 *
 * const verdict: ReviewVerdict = {
 *   verdict: 'revise',
 *   revise_target: 'bullish_researcher',
 *   issues: [{ severity: 'major', field: 'key_levels[0].evidence', description: 'No evidence given' }],
 * };
 * ```
 */
export interface ReviewVerdict {
  readonly verdict: (typeof REVIEW_VERDICTS)[number];
  readonly issues?: readonly ReviewIssue[] | undefined;
  /** Who must revise; the loop passes it to the generator as `request.target`. */
  readonly revise_target?: string | undefined;
  readonly summary?: string | undefined;
  readonly score?: number | undefined;
}
