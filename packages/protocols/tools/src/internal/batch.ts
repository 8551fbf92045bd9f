import type { ToolRunOptions } from '../gate-types.js';
import type { ToolBatchResult } from '../types.js';
import type { CallHandler, CallHandlerOptions } from './calls.js';
import type { Settled } from './runtime.js';

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
