import type {
  AlreadyApplied,
  AppliedAction,
  Conflict,
  DeferredCall,
  RecognisedCall,
  ToolFeedback,
} from './types.js';
import type { ReviewVerdict } from './verdict.js';

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
  /**
   * Every call that has taken effect in the run so far (this attempt and the earlier ones). They
   * stay applied; an equal call (same tool and arguments) in the next attempt is recognised as
   * one of them and not run again. Absent when nothing has taken effect.
   */
  readonly already_applied?: readonly AlreadyApplied[] | undefined;
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
  /** Ids of proposed calls not sent to the gate because they equal one applied or held earlier (see `recognised`). */
  readonly skippedCallIds: readonly string[];
  /** The proposed calls recognised as equal to a call applied (or held) earlier in the run. */
  readonly recognised: readonly RecognisedCall[];
  readonly verdict?: ReviewVerdict | undefined;
  /**
   * Retries (review gates: revise rounds) the run had used once this attempt was judged: the
   * previous record's count, plus one when this attempt was sent back for another try. The attempt
   * that asks for one round too many does not count one, so rounds read `retries` of the limit.
   */
  readonly retries: number;
  /**
   * Whether this attempt ended the run with a report: over the retry or revise-round limit (its
   * status stays `conflict`, `tool_rejected` or `revise`), blocked, a malformed verdict or an
   * unknown target, or an error after its retry.
   */
  readonly escalated: boolean;
  /** The error of a `generator_error`, `reviewer_error`, `failed` or `cancelled` attempt. */
  readonly error?: { readonly name: string; readonly message: string } | undefined;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly durationMs: number;
}
