import { assertTtlMs, createEmitter, systemClock } from '@parley/core';
import { DEFAULT_MAX_ERROR_RETRIES } from './loop-options.js';
import { type Judgement, runLoop } from './internal/engine.js';
import { checkFunction, checkLimit } from './internal/options.js';
import { type StoredRounds, storedRounds } from './internal/rounds.js';
import { judgeReviewVerdict } from './review-verdict.js';
import type { ConflictLoopEvents } from './report.js';
import { ConflictError } from './errors.js';
import {
  DEFAULT_MAX_REVISIONS,
  DEFAULT_REVIEW_TTL_MS,
  type ReviewGate,
  type ReviewGateOptions,
} from './review-options.js';

/**
 * Creates a review gate, the same loop with a reviewer as the judge: `pass` returns the output,
 * `revise` re-runs the generator with the issues appended to the previous request (and
 * `request.target` set to `revise_target`), at most `maxRevisions` rounds, and `block` escalates at
 * once. Every attempt is recorded as in the conflict loop.
 *
 * Use it for the reference pipeline's review step: a reviewer agent checks an artifact, and past
 * 3 revise rounds (or on a block) the report goes to a person. A verdict that is not one of
 * `pass` / `revise` / `block`, or a `revise` without issues, escalates as `invalid_verdict` (fail
 * closed). A generator or reviewer that throws is retried once with the same request, then
 * reported as `generator_failed` / `reviewer_failed`. With a `store`, the rounds are counted per
 * `taskId` in the store (a durable-kernel record; each round taken on the committed count with one
 * compare-and-set), so a restarted pipeline or another gate instance keeps the task's count.
 *
 * @throws ConflictError `invalid_argument` when `review` is not a function, a limit is outside
 * 0–100, `targets` is not a list of strings, `ttlMs` is out of range or `store` is not a Store;
 * `run` rejects with `store_failed` when the store fails or holds a corrupt count, and with
 * `invalid_argument` when the gate has a store and the run no `taskId`.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createReviewGate } from '@parley/conflict';
 *
 * interface Thesis { stop_loss?: number }
 * const gate = createReviewGate<Thesis>({
 *   review: (thesis) =>
 *     thesis.stop_loss === undefined
 *       ? { verdict: 'revise', revise_target: 'quant_strategist', issues: [{ severity: 'critical', field: 'stop_loss', description: 'Missing' }] }
 *       : { verdict: 'pass' },
 *   clock: createManualClock(),
 * });
 *
 * const outcome = await gate.run({
 *   input: 'converge the briefs',
 *   generate: async (request) => (request.feedback.length === 0 ? {} : { stop_loss: 61_200 }),
 * });
 * console.log(outcome.ok, outcome.retries); // true 1
 * ```
 */
export function createReviewGate<TOutput, TInput = unknown>(
  options: ReviewGateOptions<TOutput, TInput>,
): ReviewGate<TOutput, TInput> {
  checkFunction(options?.review, 'review');
  const maxRetries = checkLimit(options.maxRevisions, 'maxRevisions', DEFAULT_MAX_REVISIONS);
  const maxErrorRetries = checkLimit(options.maxErrorRetries, 'maxErrorRetries', DEFAULT_MAX_ERROR_RETRIES);
  const targets = options.targets;
  if (targets !== undefined && (!Array.isArray(targets) || targets.some((t) => typeof t !== 'string'))) {
    throw new ConflictError('invalid_argument', 'targets must be a list of role names');
  }
  const { review, store } = options;
  const keyPrefix = options.keyPrefix ?? 'review:';
  if (typeof keyPrefix !== 'string') throw new ConflictError('invalid_argument', 'keyPrefix must be text');
  const ttlMs = checkTtl(options.ttlMs);
  if (
    store !== undefined &&
    (typeof store?.getEntry !== 'function' || typeof store.compareAndSet !== 'function')
  ) {
    throw new ConflictError('invalid_argument', 'store must be a core Store (getEntry, compareAndSet)');
  }
  const clock = options.clock ?? systemClock;
  const events = createEmitter<ConflictLoopEvents>();

  return {
    async run(run) {
      checkFunction(run?.generate, 'generate');
      let rounds: StoredRounds | undefined;
      if (store !== undefined) {
        if (typeof run.taskId !== 'string' || run.taskId === '') {
          throw new ConflictError(
            'invalid_argument',
            'A review gate with a store needs a taskId for every run',
          );
        }
        rounds = storedRounds(store, clock, keyPrefix + run.taskId, ttlMs);
      }
      return runLoop(
        {
          maxRetries,
          initialRetries: rounds === undefined ? 0 : await rounds.load(),
          maxErrorRetries,
          limitReason: 'revise_limit',
          clock,
          events,
          async judge(output, { attempt, request, signal, retries }): Promise<Judgement> {
            let answer: unknown;
            try {
              // The output came from the caller's generate, typed TOutput.
              answer = await review(output as TOutput, { attempt, revisions: retries, request, signal });
            } catch (error) {
              return { kind: 'error', status: 'reviewer_error', reason: 'reviewer_failed', error };
            }
            const judged = judgeReviewVerdict(answer, targets);
            if (judged.kind === 'pass') return { kind: 'accept', status: 'passed', verdict: judged.verdict };
            if (judged.kind === 'escalate') {
              const status = judged.reason;
              return judged.verdict === undefined
                ? { kind: 'escalate', status, reason: judged.reason, error: new Error(judged.message) }
                : { kind: 'escalate', status, reason: judged.reason, verdict: judged.verdict };
            }
            const { verdict: checked, target } = judged;
            if (rounds === undefined) return { kind: 'retry', status: 'revise', verdict: checked, target };
            // The count lives with the task: take the round in the store, whoever else took one.
            const used = await rounds.claim(maxRetries);
            if (used === undefined) {
              return { kind: 'escalate', status: 'revise', reason: 'revise_limit', verdict: checked };
            }
            return { kind: 'retry', status: 'revise', verdict: checked, target, retries: used };
          },
        },
        run.input,
        run.generate,
        run.signal,
      );
    },
    on: (event, listener) => events.on(event, listener),
  };
}

function checkTtl(value: unknown): number {
  if (value === undefined) return DEFAULT_REVIEW_TTL_MS;
  try {
    return assertTtlMs(value);
  } catch (error) {
    throw new ConflictError(
      'invalid_argument',
      `ttlMs must be a positive number of ms, got ${String(value)}`,
      {
        cause: error,
      },
    );
  }
}
