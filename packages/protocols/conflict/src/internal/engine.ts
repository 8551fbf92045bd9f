import { type Clock, type Emitter, isParleyError } from '@parley/core';
import { ConflictError } from '../errors.js';
import { toDocumentFeedback } from './checks.js';
import type {
  AlreadyApplied,
  AppliedAction,
  Conflict,
  DeferredCall,
  RecognisedCall,
  ToolFeedback,
} from '../types.js';
import type { ReviewVerdict } from '../verdict.js';
import type { AttemptRecord, AttemptRequest, AttemptStatus, GenerateFn, RetryFeedback } from '../records.js';
import type { ConflictLoopEvents, ConflictOutcome, ConflictReportReason } from '../report.js';
import { buildReport, errorInfo } from './report.js';

/** What a judge tells the loop about one output. */
export interface Judgement {
  readonly kind: 'accept' | 'retry' | 'escalate' | 'error';
  readonly status: AttemptStatus;
  /** For `escalate` and `error`: the report reason. */
  readonly reason?: ConflictReportReason;
  readonly conflicts?: readonly Conflict[];
  readonly toolFeedback?: ToolFeedback | undefined;
  readonly executed?: readonly AppliedAction[];
  readonly deferred?: readonly DeferredCall[];
  readonly skippedCallIds?: readonly string[];
  readonly recognised?: readonly RecognisedCall[];
  /** Every call that has taken effect in the run once this attempt is judged, for the feedback. */
  readonly alreadyApplied?: readonly AlreadyApplied[];
  readonly verdict?: ReviewVerdict | undefined;
  /** For `retry`: the rounds used once this one is counted, when the judge counted it itself. */
  readonly retries?: number;
  /** K as read for this decision (a campaign setting may change it between attempts); the spec's otherwise. */
  readonly maxRetries?: number;
  /** For `retry`: who must produce the next attempt. */
  readonly target?: string | undefined;
  readonly error?: unknown;
}

export interface JudgeContext<TInput> {
  readonly attempt: number;
  readonly request: AttemptRequest<TInput>;
  readonly signal: AbortSignal | undefined;
  readonly applied: readonly AppliedAction[];
  readonly deferred: readonly DeferredCall[];
  readonly retries: number;
}

export interface EngineSpec<TInput> {
  readonly maxRetries: number;
  readonly maxErrorRetries: number;
  readonly limitReason: 'max_retries' | 'revise_limit';
  /** Rounds already used before this run (a count kept with the task); 0 by default. */
  readonly initialRetries?: number;
  readonly clock: Clock;
  readonly events: Emitter<ConflictLoopEvents>;
  /** Judges one output; throws only a ConflictError (detector_failed, gate_failed, store_failed) or a host error. */
  readonly judge: (output: unknown, context: JudgeContext<TInput>) => Promise<Judgement>;
}

/**
 * The one loop behind the conflict loop and the review gate: generate → judge → accept, or append
 * feedback to the previous request and generate again, at most `maxRetries` times, then report.
 */
export async function runLoop<TInput, TOutput>(
  spec: EngineSpec<TInput>,
  input: TInput,
  generate: GenerateFn<TInput, TOutput>,
  signal: AbortSignal | undefined,
): Promise<ConflictOutcome<TOutput, TInput>> {
  const { clock, events } = spec;
  const records: AttemptRecord<TInput>[] = [];
  const feedback: RetryFeedback[] = [];
  const applied: AppliedAction[] = [];
  const deferred: DeferredCall[] = [];
  let retries = spec.initialRetries ?? 0;
  let maxRetries = spec.maxRetries;
  let errors = 0;
  let target: string | undefined;

  const cancelled = (): ConflictError =>
    new ConflictError('cancelled', 'The run was cancelled by its signal', {
      cause: signal?.reason,
      details: { attempts: [...records], appliedActions: [...applied] },
    });

  const settle = (
    reason: ConflictReportReason | undefined,
    output: TOutput | undefined,
    error?: unknown,
  ): ConflictOutcome<TOutput, TInput> => {
    const common = {
      appliedActions: [...applied],
      deferredCalls: [...deferred],
      retries,
      attempts: [...records],
    };
    events.emit('settled', { ok: reason === undefined, code: reason, attempts: records.length });
    if (reason === undefined) return { ok: true, output: output as TOutput, ...common }; // only for an accepted output
    const report = buildReport(reason, records, retries, maxRetries, applied, error, clock.now());
    return { ok: false, code: reason, report, ...common };
  };

  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw cancelled();
    const request: AttemptRequest<TInput> = Object.freeze({
      input,
      feedback: Object.freeze([...feedback]),
      ...(target === undefined ? {} : { target }),
    });
    const startedAt = clock.now();
    const finish = (fields: Partial<AttemptRecord<TInput>> & { status: AttemptStatus }): void => {
      const endedAt = clock.now();
      const record: AttemptRecord<TInput> = {
        attempt,
        request,
        conflicts: [],
        executed: [],
        deferred: [],
        skippedCallIds: [],
        recognised: [],
        retries,
        escalated: false,
        ...fields,
        startedAt,
        endedAt,
        durationMs: endedAt - startedAt,
      };
      records.push(record);
      events.emit('attempt', { record });
    };

    let output: TOutput;
    try {
      output = await withAbort(
        Promise.resolve().then(() => generate(request, { attempt, signal })),
        signal,
      );
    } catch (error) {
      if (signal?.aborted) {
        finish({ status: 'cancelled', error: errorInfo(signal.reason) });
        throw cancelled();
      }
      finish({
        status: 'generator_error',
        error: errorInfo(error),
        escalated: errors >= spec.maxErrorRetries,
      });
      if (errors < spec.maxErrorRetries) {
        errors++;
        continue; // the same request again: a failed call is not the model's mistake
      }
      return settle('generator_failed', undefined, error);
    }
    if (signal?.aborted) {
      finish({ status: 'cancelled', output, error: errorInfo(signal.reason) });
      throw cancelled();
    }

    let judged: Judgement;
    try {
      judged = await spec.judge(output, { attempt, request, signal, applied, deferred, retries });
    } catch (error) {
      if (signal?.aborted) {
        finish({ status: 'cancelled', output, error: errorInfo(signal.reason) });
        throw cancelled();
      }
      finish({ status: 'failed', output, error: errorInfo(error) });
      if (!isParleyError(error, 'detector_failed', 'gate_failed', 'store_failed')) throw error; // host errors pass through
      throw new ConflictError(error.code, error.message, {
        cause: error.cause,
        details: { ...error.details, attempts: [...records], appliedActions: [...applied] },
      });
    }
    applied.push(...(judged.executed ?? []));
    deferred.push(...(judged.deferred ?? []));
    // A retry past the limit escalates instead: its record says so, and counts no new round.
    if (judged.maxRetries !== undefined) maxRetries = judged.maxRetries;
    const overLimit = judged.kind === 'retry' && retries >= maxRetries;
    const retried = judged.kind === 'retry' && !overLimit;
    const exhausted = judged.kind === 'error' && errors >= spec.maxErrorRetries;
    finish({
      retries: retried ? (judged.retries ?? retries + 1) : retries,
      escalated: overLimit || judged.kind === 'escalate' || exhausted,
      status: judged.status,
      output,
      conflicts: judged.conflicts ?? [],
      toolFeedback: judged.toolFeedback,
      executed: judged.executed ?? [],
      deferred: judged.deferred ?? [],
      skippedCallIds: judged.skippedCallIds ?? [],
      recognised: judged.recognised ?? [],
      verdict: judged.verdict,
      ...(judged.error === undefined ? {} : { error: errorInfo(judged.error) }),
    });

    switch (judged.kind) {
      case 'accept':
        return settle(undefined, output);
      case 'escalate':
        return settle(judged.reason ?? spec.limitReason, undefined);
      case 'error':
        if (errors < spec.maxErrorRetries) {
          errors++;
          continue;
        }
        return settle(judged.reason ?? 'generator_failed', undefined, judged.error);
      case 'retry':
        if (overLimit) return settle(spec.limitReason, undefined);
        retries = judged.retries ?? retries + 1;
        feedback.push(
          Object.freeze({
            attempt,
            conflict_debug: judged.conflicts ?? [],
            ...(judged.toolFeedback === undefined
              ? {}
              : { tool_feedback: toDocumentFeedback(judged.toolFeedback) }),
            ...(judged.alreadyApplied === undefined || judged.alreadyApplied.length === 0
              ? {}
              : { already_applied: judged.alreadyApplied }),
            ...(judged.verdict === undefined ? {} : { review: judged.verdict }),
            rejected_output: output,
          }),
        );
        if (judged.target !== undefined) target = judged.target;
    }
  }
}

/** Races a promise against a signal; the promise's later outcome is observed, so nothing is unhandled. */
export function withAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
