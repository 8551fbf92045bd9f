import { ToolsError } from '../errors.js';
import type { ToolRunOptions } from '../gate-types.js';
import type { ToolGateLimits } from '../limits.js';
import type { ToolBatchResult, ToolGateEvents } from '../types.js';
import { baseOf, repeatedIds } from './call-shape.js';
import type { CallHandler, CallHandlerOptions } from './calls.js';
import { checkRun } from './options.js';
import { refuse } from './refuse.js';
import type { Runtime, Settled } from './runtime.js';
import { isPromise } from './promise.js';

// A batch's answer as its calls settle: in order, with an event for each call.

/** The answer to a batch as it is collected: the result itself, its lists still growing. */
interface Collected extends ToolBatchResult {
  readonly executed: ToolBatchResult['executed'][number][];
  readonly feedback: { readonly failed_calls: ToolBatchResult['feedback']['failed_calls'][number][] };
  readonly records: ToolBatchResult['records'][number][];
}

const collecting = (): Collected => ({ executed: [], feedback: { failed_calls: [] }, records: [] });

/** What announces a batch's calls. */
interface Announcer {
  readonly emit: CallHandlerOptions<unknown>['emit'];
  /** Whether anyone listens to `event`: an event nobody hears is not written. */
  readonly hears: (event: keyof ToolGateEvents & string) => boolean;
}

/** What a gate processes batches with; `batches` counts them (a batch's number in its call ids). */
export interface BatchProcessor<TContext> extends Announcer {
  readonly runtime: Runtime<TContext>;
  readonly handle: CallHandler<TContext>;
  readonly limits: ToolGateLimits;
  batches: number;
}

/** Collects one settled call into the batch's answer and emits its event (when it is heard). */
function collect(settled: Settled, turn: number, answer: Collected, processor: Announcer): void {
  answer.records.push(settled.record);
  if (settled.executed !== undefined) answer.executed.push(settled.executed);
  if (settled.failed !== undefined) answer.feedback.failed_calls.push(settled.failed);
  announce(settled, turn, processor);
}

/**
 * The answer to a batch of one call that settled at once: as {@link collect} writes it, with lists
 * made to measure (a list grown by its first push takes room for many).
 */
function alone(settled: Settled, turn: number, processor: Announcer): ToolBatchResult {
  const { executed, failed } = settled;
  const answer: ToolBatchResult = {
    executed: executed === undefined ? [] : [executed],
    feedback: { failed_calls: failed === undefined ? [] : [failed] },
    records: [settled.record],
  };
  announce(settled, turn, processor);
  return answer;
}

/** Emits the event of a settled call, when it is heard (a replay is not announced again). */
function announce(settled: Settled, turn: number, processor: Announcer): void {
  const { executed, failed } = settled;
  if (executed !== undefined && !executed.replayed && processor.hears('executed'))
    processor.emit('executed', { turn, call: executed });
  if (failed !== undefined && !settled.record.replayed && processor.hears('refused'))
    processor.emit('refused', { turn, failed });
}

/** The rest of a batch once one of its calls answered with a promise. */
async function finishBatch<TContext>(
  processor: BatchProcessor<TContext>,
  pending: Promise<Settled>,
  from: number,
  calls: readonly unknown[],
  repeated: ReadonlySet<string>,
  run: ToolRunOptions<TContext>,
  batch: number,
  answer: Collected,
): Promise<ToolBatchResult> {
  collect(await pending, run.turn, answer, processor);
  for (let index = from + 1; index < calls.length; index++) {
    collect(await processor.handle(calls[index], index, repeated, run, batch), run.turn, answer, processor);
  }
  return answer;
}

/** Judges and runs a batch in order (`ToolGate.process`); a batch over the cap is refused whole. */
export function processBatch<TContext>(
  processor: BatchProcessor<TContext>,
  calls: readonly unknown[],
  run: ToolRunOptions<TContext>,
): Promise<ToolBatchResult> {
  const { runtime, handle, limits } = processor;
  try {
    checkRun(run);
    if (!Array.isArray(calls)) throw new ToolsError('invalid_argument', 'calls must be a list of tool calls');
    const batch = ++processor.batches;
    // A batch over the cap is refused whole: every call, none judged.
    if (calls.length > limits.maxBatchCalls) {
      const answer = collecting();
      const tooMany = `The batch has ${calls.length} calls, over the ${limits.maxBatchCalls} allowed; none ran. Send fewer at once`;
      for (let index = 0; index < calls.length; index++) {
        const base = baseOf(calls[index], index, limits);
        collect(refuse(runtime, run.turn, base, 'too_many_calls', tooMany), run.turn, answer, processor);
      }
      return Promise.resolve(answer);
    }
    const repeated = repeatedIds(calls);
    if (calls.length === 1) {
      const settled = handle(calls[0], 0, repeated, run, batch);
      return isPromise(settled)
        ? finishBatch(processor, settled, 0, calls, repeated, run, batch, collecting())
        : Promise.resolve(alone(settled, run.turn, processor));
    }
    const answer = collecting();
    for (let index = 0; index < calls.length; index++) {
      const settled = handle(calls[index], index, repeated, run, batch);
      if (isPromise(settled))
        return finishBatch(processor, settled, index, calls, repeated, run, batch, answer);
      collect(settled, run.turn, answer, processor);
    }
    return Promise.resolve(answer);
  } catch (error) {
    return Promise.reject(error);
  }
}
