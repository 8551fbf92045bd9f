/**
 * One tool call the model proposes, in the reference document's request format
 * (`assistant_structured.tool_calls[]`).
 *
 * @example
 * ```ts
 * import type { ToolCall } from '@parley/conflict';
 *
 * const call: ToolCall = {
 *   id: 'call_001',
 *   tool: 'hp_delta',
 *   args: { target_character_id: 'pc_1', delta: -5, cause: 'goblin arrow' },
 *   reason: 'The goblin hits',
 * };
 * ```
 */
export interface ToolCall {
  /** Unique within a proposal; the loop runs a side effect at most once per id across retries. */
  readonly id: string;
  /** The tool's name, e.g. `move` or `hp_delta`. */
  readonly tool: string;
  /** The arguments; judged by the tool gate, never trusted. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The model's reason, in natural language (optional). */
  readonly reason?: string | undefined;
}

/**
 * What a generator returns in the conflict loop: the text meant for players plus the structured
 * part (tool calls and anything else the host asks the model for).
 *
 * @example
 * ```ts
 * import type { Proposal } from '@parley/conflict';
 *
 * const proposal: Proposal = {
 *   text: 'The arrow hits: you lose 5 HP.',
 *   tool_calls: [{ id: 'call_1', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: -5, cause: 'arrow' } }],
 * };
 * ```
 */
export interface Proposal {
  /** The narrative text (`assistant_output_text`). */
  readonly text: string;
  /** Proposed tool calls (`assistant_structured.tool_calls`). */
  readonly tool_calls?: readonly ToolCall[] | undefined;
  /** Any other structured output, e.g. a proposed state patch a detector inspects. */
  readonly structured?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The reference document's `conflict_debug`: what the authoritative state says, why the output
 * disagrees with it, and what the retry must do instead.
 *
 * @example
 * ```ts
 * import type { ConflictDebug } from '@parley/conflict';
 *
 * const debug: ConflictDebug = {
 *   expected_state_snippet: { 'pc_1.hp': { current: 20, max: 20 } },
 *   mismatch_reason: 'The text says "you lose 5 HP" but no hp_delta call settles it',
 *   instructions: 'Do not change HP in the narrative; request an hp_delta tool call.',
 * };
 * ```
 */
export interface ConflictDebug {
  /** A summary of the authoritative fields involved (plain JSON). */
  readonly expected_state_snippet: unknown;
  /** Why the output contradicts them. */
  readonly mismatch_reason: string;
  /** What the model must do in the retry. */
  readonly instructions: string;
}

/**
 * A conflict found by a detector: its `conflict_debug` plus which detector found it and the
 * text or call that triggered it.
 *
 * @example
 * ```ts
 * import type { Conflict } from '@parley/conflict';
 *
 * const conflict: Conflict = {
 *   detector: 'move_claim',
 *   evidence: 'moves to the tavern',
 *   expected_state_snippet: { current_area_ids: ['market'] },
 *   mismatch_reason: 'The text claims a move but no move call was proposed',
 *   instructions: 'Request a move tool call instead of narrating the move.',
 * };
 * ```
 */
export interface Conflict extends ConflictDebug {
  /** The name of the detector that found it. */
  readonly detector: string;
  /** The matched text or path, when there is one. */
  readonly evidence?: string | undefined;
  /** The tool call concerned, when there is one. */
  readonly call_id?: string | undefined;
}

/**
 * The statuses a failed tool call can have in `tool_feedback.failed_calls`.
 *
 * @example
 * ```ts
 * import { TOOL_FAILURE_STATUSES } from '@parley/conflict';
 *
 * console.log(TOOL_FAILURE_STATUSES); // ['rejected', 'error']
 * ```
 */
export const TOOL_FAILURE_STATUSES = ['rejected', 'error'] as const;

/**
 * `rejected` (the gate refused the call) or `error` (it was allowed but failed when run).
 *
 * @example
 * ```ts
 * import type { ToolFailureStatus } from '@parley/conflict';
 *
 * const status: ToolFailureStatus = 'rejected';
 * ```
 */
export type ToolFailureStatus = (typeof TOOL_FAILURE_STATUSES)[number];

/**
 * One entry of `tool_feedback.failed_calls`, with the reference document's field names.
 *
 * @example
 * ```ts
 * import type { FailedCall } from '@parley/conflict';
 *
 * const failed: FailedCall = {
 *   id: 'call_001',
 *   tool: 'move',
 *   status: 'rejected',
 *   reason: 'area_locked: the movement lock is not released',
 *   disabled_until: 'the door is unlocked',
 * };
 * ```
 */
export interface FailedCall {
  readonly id: string;
  readonly tool: string;
  readonly status: ToolFailureStatus;
  /** Why it failed, in words the model can act on. */
  readonly reason: string;
  /** Optional: until when (or what) the tool stays disabled. */
  readonly disabled_until?: string | undefined;
}

/**
 * The reference document's `tool_feedback`: the calls that were refused or failed, appended to
 * the previous request so the model does not have to guess.
 *
 * @example
 * ```ts
 * import type { ToolFeedback } from '@parley/conflict';
 *
 * const feedback: ToolFeedback = {
 *   failed_calls: [{ id: 'call_9', tool: 'teleport', status: 'rejected', reason: 'tool not enabled' }],
 * };
 * ```
 */
export interface ToolFeedback {
  readonly failed_calls: readonly FailedCall[];
}

/**
 * A tool call the gate executed (the document's `applied_actions`).
 *
 * @example
 * ```ts
 * import type { AppliedAction } from '@parley/conflict';
 *
 * const action: AppliedAction = { id: 'call_1', tool: 'hp_delta', args: { delta: -5 }, result: { hp: 15 } };
 * ```
 */
export interface AppliedAction {
  readonly id: string;
  readonly tool: string;
  readonly args?: Readonly<Record<string, unknown>> | undefined;
  /** Whatever the tool returned, for the turn log. */
  readonly result?: unknown;
}

/**
 * A tool call the gate neither executed nor refused but holds, e.g. waiting for a person to
 * confirm a destructive tool. It does not cause a retry and is never sent to the gate again.
 *
 * @example
 * ```ts
 * import type { DeferredCall } from '@parley/conflict';
 *
 * const held: DeferredCall = { id: 'call_3', tool: 'delete_save', reason: 'awaiting confirmation cfm_1' };
 * ```
 */
export interface DeferredCall {
  readonly id: string;
  readonly tool: string;
  readonly reason?: string | undefined;
}

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

/**
 * What the loop appends to the request after a rejected attempt: the attempt's `conflict_debug`,
 * its `tool_feedback`, the reviewer's verdict, or the generator's error, and the output that was
 * rejected. One entry per rejected attempt, oldest first.
 *
 * @example
 * ```ts
 * import type { RetryFeedback } from '@parley/conflict';
 *
 * const feedback: RetryFeedback = {
 *   attempt: 1,
 *   conflict_debug: [],
 *   tool_feedback: { failed_calls: [{ id: 'call_1', tool: 'move', status: 'rejected', reason: 'area locked' }] },
 *   rejected_output: { text: 'You walk into the vault.' },
 * };
 * ```
 */
export interface RetryFeedback {
  /** The attempt (1-based) this feedback is about. */
  readonly attempt: number;
  /** The conflicts found in that attempt; empty when it was rejected for another reason. */
  readonly conflict_debug: readonly Conflict[];
  readonly tool_feedback?: ToolFeedback | undefined;
  /** The reviewer's `revise` verdict (review gates). */
  readonly review?: ReviewVerdict | undefined;
  /** The output that was rejected, so the model can correct rather than start over. */
  readonly rejected_output?: unknown;
}

/**
 * The request a generator receives: the caller's original input, unchanged, plus every feedback
 * entry appended so far. Attempt n + 1 gets attempt n's request with one more entry.
 *
 * @example
 * ```ts
 * import type { AttemptRequest } from '@parley/conflict';
 *
 * const request: AttemptRequest<{ prompt: string }> = { input: { prompt: 'Describe the tavern' }, feedback: [] };
 * ```
 */
export interface AttemptRequest<TInput> {
  readonly input: TInput;
  readonly feedback: readonly RetryFeedback[];
  /** Review gates: the `revise_target` of the last `revise` verdict. */
  readonly target?: string | undefined;
}

/**
 * What the generator's second argument holds.
 *
 * @example
 * ```ts
 * import type { GenerateContext } from '@parley/conflict';
 *
 * const context: GenerateContext = { attempt: 1, signal: undefined };
 * ```
 */
export interface GenerateContext {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** The run's signal; pass it on to the model client so an abort stops the request. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Any async function that produces an output from a request: wrap a model client in one.
 *
 * @example
 * ```ts
 * import type { GenerateFn, Proposal } from '@parley/conflict';
 *
 * const generate: GenerateFn<string, Proposal> = async (request) => ({
 *   text: `Echo: ${request.input} (${request.feedback.length} corrections)`,
 * });
 * ```
 */
export type GenerateFn<TInput, TOutput> = (
  request: AttemptRequest<TInput>,
  context: GenerateContext,
) => Promise<TOutput> | TOutput;

/**
 * The statuses an attempt record can have.
 *
 * @example
 * ```ts
 * import { ATTEMPT_STATUSES } from '@parley/conflict';
 *
 * console.log(ATTEMPT_STATUSES.includes('tool_rejected')); // true
 * ```
 */
export const ATTEMPT_STATUSES = [
  'passed',
  'conflict',
  'tool_rejected',
  'revise',
  'blocked',
  'invalid_verdict',
  'unknown_target',
  'generator_error',
  'reviewer_error',
  'cancelled',
  'failed',
] as const;

/**
 * The status of one attempt: `passed`, `conflict` (a detector objected), `tool_rejected` (the gate
 * refused a call), `revise` / `blocked` / `invalid_verdict` / `unknown_target` (review gates),
 * `generator_error` / `reviewer_error` (a model call threw), `cancelled`, or `failed` (a detector
 * or the gate threw).
 *
 * @example
 * ```ts
 * import type { AttemptStatus } from '@parley/conflict';
 *
 * const status: AttemptStatus = 'conflict';
 * ```
 */
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/**
 * The audit record of one attempt: what went in, what came out, what was found and done, and
 * when (times from the injected clock).
 *
 * @example
 * ```ts
 * import type { AttemptRecord } from '@parley/conflict';
 *
 * function line(record: AttemptRecord<unknown>): string {
 *   return `#${record.attempt} ${record.status} in ${record.durationMs} ms`;
 * }
 * ```
 */
export interface AttemptRecord<TInput> {
  readonly attempt: number;
  readonly status: AttemptStatus;
  /** The request the generator received. */
  readonly request: AttemptRequest<TInput>;
  /** What the generator returned, exactly as returned (absent when it threw or was cancelled). */
  readonly output?: unknown;
  readonly conflicts: readonly Conflict[];
  readonly toolFeedback?: ToolFeedback | undefined;
  /** Calls the gate executed in this attempt. */
  readonly executed: readonly AppliedAction[];
  /** Calls the gate holds after this attempt. */
  readonly deferred: readonly DeferredCall[];
  /** Ids of proposed calls not sent to the gate because an earlier attempt already handled them. */
  readonly skippedCallIds: readonly string[];
  readonly verdict?: ReviewVerdict | undefined;
  /** The error of a `generator_error`, `reviewer_error`, `failed` or `cancelled` attempt. */
  readonly error?: { readonly name: string; readonly message: string } | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly durationMs: number;
}

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
  'revise_limit',
  'blocked',
  'invalid_verdict',
  'unknown_target',
  'generator_failed',
  'reviewer_failed',
] as const;

/**
 * A reason a run was handed to a person: `max_retries` (still contradicting after K retries),
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
