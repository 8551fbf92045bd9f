import type { Clock, Store, Unsubscribe } from '@parley/core';
import type { AttemptRequest, GenerateFn } from './records.js';
import type { ConflictLoopEvents, ConflictOutcome } from './report.js';
import type { ReviewVerdict } from './verdict.js';

/**
 * The revise rounds a review gate allows by default: 3, as in the reference pipeline
 * (`on_revise: retry(converge, max=3)`, then escalate).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_REVISIONS } from '@parley/conflict';
 *
 * console.log(DEFAULT_MAX_REVISIONS); // 3
 * ```
 */
export const DEFAULT_MAX_REVISIONS = 3;

/**
 * What a reviewer's second argument holds.
 *
 * @example
 * ```ts
 * import type { ReviewContext } from '@parley/conflict';
 *
 * const context: ReviewContext<string> = { attempt: 1, revisions: 0, request: { input: 'brief', feedback: [] }, signal: undefined };
 * ```
 */
export interface ReviewContext<TInput> {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** Revise rounds already run before this review. */
  readonly revisions: number;
  /** The request the reviewed output was generated from. */
  readonly request: AttemptRequest<TInput>;
  readonly signal: AbortSignal | undefined;
}

/**
 * A reviewer: judges one output and returns a verdict. Usually another model call, so its answer
 * is checked, never trusted.
 *
 * @example
 * ```ts
 * import type { Reviewer } from '@parley/conflict';
 *
 * const reviewer: Reviewer<{ stop_loss: number }> = (thesis) =>
 *   thesis.stop_loss > 0
 *     ? { verdict: 'pass' }
 *     : { verdict: 'revise', issues: [{ field: 'stop_loss', description: 'Missing stop loss' }] };
 * ```
 */
export type Reviewer<TOutput, TInput = unknown> = (
  output: TOutput,
  context: ReviewContext<TInput>,
) => ReviewVerdict | Promise<ReviewVerdict>;

/**
 * Options for {@link createReviewGate}.
 *
 * @example
 * ```ts
 * import type { ReviewGateOptions } from '@parley/conflict';
 *
 * const options: ReviewGateOptions<string> = {
 *   review: (text) => (text.length > 0 ? { verdict: 'pass' } : { verdict: 'block', summary: 'empty' }),
 *   maxRevisions: 3,
 *   targets: ['quant_strategist', 'bullish_researcher'],
 * };
 * ```
 */
export interface ReviewGateOptions<TOutput, TInput = unknown> {
  readonly review: Reviewer<TOutput, TInput>;
  /** Revise rounds allowed before escalation (0–100); {@link DEFAULT_MAX_REVISIONS} by default. */
  readonly maxRevisions?: number;
  /**
   * The roles a `revise_target` may name. When set, a verdict naming any other role escalates with
   * `unknown_target`; when absent, any target is passed on to the generator.
   */
  readonly targets?: readonly string[];
  /** Retries of a generator or reviewer that threw (0–100); 1 by default. */
  readonly maxErrorRetries?: number;
  readonly clock?: Clock;
  /**
   * Keeps each task's revise-round count in this store (a durable-kernel record of kind
   * `parley.conflict.rounds`, each round taken on the committed count), under `keyPrefix + taskId`, so the limit holds across restarts and gate instances: a pipeline
   * restarted after 3 revise rounds escalates on the next `revise`. Runs then need a `taskId`.
   * Without a store the count lives in one `run()` only.
   */
  readonly store?: Store;
  /** The key prefix of the stored counts; `review:` by default. */
  readonly keyPrefix?: string;
  /** How long a stored count lives after its last round; {@link DEFAULT_REVIEW_TTL_MS} by default. */
  readonly ttlMs?: number;
}

/**
 * How long a review gate keeps a task's revise-round count in its store after the last round by
 * default: 7 days.
 *
 * @example
 * ```ts
 * import { DEFAULT_REVIEW_TTL_MS } from '@parley/conflict';
 *
 * console.log(DEFAULT_REVIEW_TTL_MS / 86_400_000); // 7
 * ```
 */
export const DEFAULT_REVIEW_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * What {@link ReviewGate.run} takes.
 *
 * @example
 * ```ts
 * import type { ReviewRunOptions } from '@parley/conflict';
 *
 * const run: ReviewRunOptions<string, string> = {
 *   input: 'BTC/USDT thesis',
 *   generate: async (request) => `thesis v${request.feedback.length + 1} for ${request.target ?? 'quant_strategist'}`,
 * };
 * ```
 */
export interface ReviewRunOptions<TInput, TOutput> {
  readonly input: TInput;
  /**
   * The task under review (e.g. the pipeline's `ref_task` and step). Required when the gate has a
   * `store`: its revise rounds are counted under this id across runs. Ignored without a store.
   */
  readonly taskId?: string;
  /** Produces the artifact; on a revise it gets the issues appended and `request.target` set. */
  readonly generate: GenerateFn<TInput, TOutput>;
  readonly signal?: AbortSignal;
}

/**
 * A review gate made by {@link createReviewGate}.
 *
 * @example
 * ```ts
 * import { createReviewGate, type ReviewGate } from '@parley/conflict';
 *
 * const gate: ReviewGate<string> = createReviewGate({ review: () => ({ verdict: 'pass' }) });
 * ```
 */
export interface ReviewGate<TOutput, TInput = unknown> {
  /**
   * Runs generate → review until `pass`, escalating on `block`, on too many `revise` rounds, or on
   * a malformed verdict.
   *
   * @throws ConflictError `cancelled` when the signal aborts; `invalid_argument` when `generate`
   * is not a function, or the gate has a store and no `taskId` is given; `store_failed` when the
   * store fails, holds a corrupt count, one of another format or one written before the durable
   * kernel (never overwritten), or keeps losing compare-and-set.
   */
  run<TRunInput extends TInput>(
    options: ReviewRunOptions<TRunInput, TOutput>,
  ): Promise<ConflictOutcome<TOutput, TRunInput>>;
  /** Subscribes to `attempt` and `settled`; returns the unsubscribe function. */
  on<K extends keyof ConflictLoopEvents>(
    event: K,
    listener: (payload: ConflictLoopEvents[K]) => void,
  ): Unsubscribe;
}
