import { ToolsError } from '../errors.js';
import type { ToolRunOptions } from '../gate-types.js';
import type { ToolGateLimits } from '../limits.js';
import type { ToolBatchResult } from '../types.js';
import { baseOf, repeatedIds } from './call-shape.js';
import type { CallHandler, CallHandlerOptions } from './calls.js';
import { checkRun } from './options.js';
import { refuse } from './refuse.js';
import type { Runtime, Settled } from './runtime.js';

// A batch's answer as its calls settle: in order, with an event for each call.

/** The answer to a batch as it is collected. */
export interface Collected {
  readonly executed: ToolBatchResult['executed'][number][];
  readonly failed: ToolBatchResult['feedback']['failed_calls'][number][];
  readonly records: ToolBatchResult['records'][number][];
}

export const resultOf = (answer: Collected): ToolBatchResult => ({
  executed: answer.executed,
  feedback: { failed_calls: answer.failed },
  records: answer.records,
});

/** Collects one settled call into the batch's answer and emits its event. */
export function collect(
  settled: Settled,
  turn: number,
  answer: Collected,
  emit: CallHandlerOptions<unknown>['emit'],
): void {
  answer.records.push(settled.record);
  if (settled.executed !== undefined) {
    answer.executed.push(settled.executed);
    if (!settled.executed.replayed) emit('executed', { turn, call: settled.executed });
  }
  if (settled.failed !== undefined) {
    answer.failed.push(settled.failed);
    if (!settled.record.replayed) emit('refused', { turn, failed: settled.failed });
  }
}

/** The rest of a batch once one of its calls answered with a promise. */
export async function finishBatch<TContext>(
  pending: Promise<Settled>,
  from: number,
  calls: readonly unknown[],
  repeated: ReadonlySet<string>,
  run: ToolRunOptions<TContext>,
  batch: number,
  answer: Collected,
  handle: CallHandler<TContext>,
  emit: CallHandlerOptions<unknown>['emit'],
): Promise<ToolBatchResult> {
  collect(await pending, run.turn, answer, emit);
  for (let index = from + 1; index < calls.length; index++) {
    collect(await handle(calls[index], index, repeated, run, batch), run.turn, answer, emit);
  }
  return resultOf(answer);
}

/** What a gate processes batches with; `batches` counts them (a batch's number in its call ids). */
export interface BatchProcessor<TContext> {
  readonly runtime: Runtime<TContext>;
  readonly handle: CallHandler<TContext>;
  readonly limits: ToolGateLimits;
  readonly emit: CallHandlerOptions<unknown>['emit'];
  batches: number;
}

/** Judges and runs a batch in order (`ToolGate.process`); a batch over the cap is refused whole. */
export function processBatch<TContext>(
  processor: BatchProcessor<TContext>,
  calls: readonly unknown[],
  run: ToolRunOptions<TContext>,
): Promise<ToolBatchResult> {
  const { runtime, handle, limits, emit } = processor;
  try {
    checkRun(run);
    if (!Array.isArray(calls)) throw new ToolsError('invalid_argument', 'calls must be a list of tool calls');
    const batch = ++processor.batches;
    const answer: Collected = { executed: [], failed: [], records: [] };
    // A batch over the cap is refused whole: every call, none judged.
    if (calls.length > limits.maxBatchCalls) {
      const tooMany = `The batch has ${calls.length} calls, over the ${limits.maxBatchCalls} allowed; none ran. Send fewer at once`;
      for (let index = 0; index < calls.length; index++) {
        const base = baseOf(calls[index], index, limits);
        collect(refuse(runtime, run.turn, base, 'too_many_calls', tooMany), run.turn, answer, emit);
      }
      return Promise.resolve(resultOf(answer));
    }
    const repeated = repeatedIds(calls);
    for (let index = 0; index < calls.length; index++) {
      const settled = handle(calls[index], index, repeated, run, batch);
      if (settled instanceof Promise)
        return finishBatch(settled, index, calls, repeated, run, batch, answer, handle, emit);
      collect(settled, run.turn, answer, emit);
    }
    return Promise.resolve(resultOf(answer));
  } catch (error) {
    return Promise.reject(error);
  }
}
