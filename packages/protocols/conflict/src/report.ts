import type { AttemptRecord, AttemptStatus } from './records.js';
import type { AppliedAction, Conflict, DeferredCall, ToolFeedback } from './types.js';
import type { ReviewVerdict } from './verdict.js';

/**
 * Why a run ended with a report for a person.
 *
 * @example
 * ```ts
 * import { CONFLICT_REPORT_REASONS } from '@parley/conflict';
 *
 * console.log(CONFLICT_REPORT_REASONS.includes('max_retries')); // true
 * ```
 */
export const CONFLICT_REPORT_REASONS = [
  'max_retries',
  'retry_disabled',
  'revise_limit',
  'blocked',
  'invalid_verdict',
  'unknown_target',
  'generator_failed',
  'reviewer_failed',
] as const;

/**
 * A reason a run was handed to a person: `max_retries` (still contradicting after K retries),
 * `retry_disabled` (the output had conflicts and `retry_with_debug` was off),
 * `revise_limit` (the reviewer asked for more revise rounds than allowed), `blocked`,
 * `invalid_verdict` (the reviewer's answer was malformed), `unknown_target` (it named a revise
 * target not in `targets`), `generator_failed` / `reviewer_failed` (a model call threw again after
 * its retry).
 *
 * @example
 * ```ts
 * import type { ConflictReportReason } from '@parley/conflict';
 *
 * const reason: ConflictReportReason = 'revise_limit';
 * ```
 */
export type ConflictReportReason = (typeof CONFLICT_REPORT_REASONS)[number];

/**
 * The reference document's `conflict_report`: what a person needs to settle a turn the model
 * could not get right. Plain JSON, snake_case like the other wire shapes.
 *
 * @example
 * ```ts
 * import type { ConflictReport } from '@parley/conflict';
 *
 * function notify(report: ConflictReport): string {
 *   return `${report.reason} after ${report.attempts} attempts: ${report.summary}`;
 * }
 * ```
 */
export interface ConflictReport {
  readonly reason: ConflictReportReason;
  /** One sentence for the person handling it. */
  readonly summary: string;
  /** How many attempts ran (generator calls). */
  readonly attempts: number;
  /** Retries used, and the limit (K, or the revise-round limit). */
  readonly retries: number;
  readonly max_retries: number;
  /** The last attempt's conflicts. */
  readonly conflict_debug: readonly Conflict[];
  readonly tool_feedback?: ToolFeedback | undefined;
  /** The last verdict, for review gates. */
  readonly review?: ReviewVerdict | undefined;
  /** The last output the model produced, never shown to players as is. */
  readonly last_output?: unknown;
  /** The last error message, for `generator_failed` / `reviewer_failed`. */
  readonly error?: string | undefined;
  /** Calls already executed during the run; they stay applied. */
  readonly applied_actions: readonly AppliedAction[];
  /** Every attempt's status and findings, oldest first. */
  readonly history: readonly {
    readonly attempt: number;
    readonly status: AttemptStatus;
    readonly conflict_debug: readonly Conflict[];
    readonly tool_feedback?: ToolFeedback | undefined;
    readonly review?: ReviewVerdict | undefined;
  }[];
  /** When the report was made (epoch ms, injected clock). */
  readonly created_at: number;
}

/**
 * How a run ended: the accepted output with the actions applied, or a report for a person.
 * Both carry every attempt's record.
 *
 * @example
 * ```ts
 * import type { ConflictOutcome, Proposal } from '@parley/conflict';
 *
 * function show(outcome: ConflictOutcome<Proposal, string>): string {
 *   return outcome.ok ? outcome.output.text : `A game master will check this turn (${outcome.code}).`;
 * }
 * ```
 */
export type ConflictOutcome<TOutput, TInput = unknown> =
  | {
      readonly ok: true;
      readonly output: TOutput;
      readonly appliedActions: readonly AppliedAction[];
      readonly deferredCalls: readonly DeferredCall[];
      readonly retries: number;
      readonly attempts: readonly AttemptRecord<TInput>[];
    }
  | {
      readonly ok: false;
      readonly code: ConflictReportReason;
      readonly report: ConflictReport;
      readonly appliedActions: readonly AppliedAction[];
      readonly deferredCalls: readonly DeferredCall[];
      readonly retries: number;
      readonly attempts: readonly AttemptRecord<TInput>[];
    };

/**
 * The events of a conflict loop or review gate.
 *
 * @example
 * ```ts
 * import type { ConflictLoopEvents } from '@parley/conflict';
 *
 * const onAttempt = (payload: ConflictLoopEvents['attempt']): void => {
 *   console.log(payload.record.status);
 * };
 * ```
 */
export interface ConflictLoopEvents {
  /** After every attempt, with its record (emitted once the record is final). */
  attempt: { readonly record: AttemptRecord<unknown> };
  /** When a run ends with an outcome (not when it rejects). */
  settled: {
    readonly ok: boolean;
    readonly code?: ConflictReportReason | undefined;
    readonly attempts: number;
  };
}
