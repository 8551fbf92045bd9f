import { type Clock, type Emitter, isParleyError } from '@parley/core';
import { ConflictError } from '../errors.js';
import { toDocumentFeedback } from './checks.js';
import type {
  AlreadyApplied,
  AppliedAction,
  Conflict,
  DeferredCall,
  RecognisedCall,
  ReviewVerdict,
  ToolFeedback,
} from '../types.js';
import type {
  AttemptRecord,
  AttemptRequest,
  AttemptStatus,
  ConflictLoopEvents,
  ConflictOutcome,
  ConflictReport,
  ConflictReportReason,
  GenerateFn,
  RetryFeedback,
} from '../records.js';

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
    const report = buildReport(reason, records, retries, spec.maxRetries, applied, error, clock.now());
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
    const overLimit = judged.kind === 'retry' && retries >= spec.maxRetries;
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
        if (retries >= spec.maxRetries) return settle(spec.limitReason, undefined);
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

function errorInfo(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function buildReport<TInput>(
  reason: ConflictReportReason,
  records: readonly AttemptRecord<TInput>[],
  retries: number,
  maxRetries: number,
  applied: readonly AppliedAction[],
  error: unknown,
  now: number,
): ConflictReport {
  const last = records[records.length - 1]!; // a report follows at least one attempt
  const lastOutput = [...records].reverse().find((record) => 'output' in record);
  const message = error === undefined ? last.error?.message : errorInfo(error).message;
  return {
    reason,
    summary: summarise(reason, retries, maxRetries, last.verdict, message),
    attempts: records.length,
    retries,
    max_retries: maxRetries,
    conflict_debug: last.conflicts,
    ...(last.toolFeedback === undefined ? {} : { tool_feedback: toDocumentFeedback(last.toolFeedback) }),
    ...(last.verdict === undefined ? {} : { review: last.verdict }),
    ...(lastOutput === undefined ? {} : { last_output: lastOutput.output }),
    ...(message === undefined ? {} : { error: message }),
    applied_actions: [...applied],
    history: records.map((record) => ({
      attempt: record.attempt,
      status: record.status,
      conflict_debug: record.conflicts,
      ...(record.toolFeedback === undefined
        ? {}
        : { tool_feedback: toDocumentFeedback(record.toolFeedback) }),
      ...(record.verdict === undefined ? {} : { review: record.verdict }),
    })),
    created_at: now,
  };
}

function summarise(
  reason: ConflictReportReason,
  retries: number,
  maxRetries: number,
  verdict: ReviewVerdict | undefined,
  message: string | undefined,
): string {
  switch (reason) {
    case 'max_retries':
      return `The output still contradicted the authoritative state after ${retries} of ${maxRetries} retries.`;
    case 'revise_limit':
      return `The reviewer still asked for a revision after ${retries} of ${maxRetries} revise rounds.`;
    case 'blocked':
      return `The reviewer blocked the output${verdict?.summary === undefined ? '.' : `: ${verdict.summary}`}`;
    case 'invalid_verdict':
      return `The reviewer's verdict was malformed: ${message}`;
    case 'unknown_target':
      return `The reviewer asked to revise "${verdict?.revise_target}", which is not an allowed target.`;
    case 'generator_failed':
      return `The generator failed again after its retry: ${message}`;
    case 'reviewer_failed':
      return `The reviewer failed again after its retry: ${message}`;
  }
}
