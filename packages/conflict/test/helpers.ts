import type {
  AttemptRequest,
  FailedCall,
  GenerateContext,
  GenerateFn,
  ToolCall,
  ToolGateLike,
} from '../src/index.js';

/** One scripted answer: a value, a function of the request, an error to throw, or a hang until aborted. */
export type Step<TOutput> =
  | { readonly value: TOutput }
  | {
      readonly fn: (request: AttemptRequest<unknown>, context: GenerateContext) => TOutput | Promise<TOutput>;
    }
  | { readonly throws: unknown }
  | { readonly hang: true };

export interface Scripted<TOutput> extends GenerateFn<unknown, TOutput> {
  /** Every request received, in order. */
  readonly requests: AttemptRequest<unknown>[];
  readonly contexts: GenerateContext[];
}

/** A generator that answers from a script, records every call, and fails loudly past the script. */
export function scripted<TOutput>(steps: readonly Step<TOutput>[]): Scripted<TOutput> {
  const requests: AttemptRequest<unknown>[] = [];
  const contexts: GenerateContext[] = [];
  const generate = async (request: AttemptRequest<unknown>, context: GenerateContext): Promise<TOutput> => {
    requests.push(request);
    contexts.push(context);
    const step = steps[requests.length - 1];
    if (step === undefined) throw new Error(`scripted: unscripted call #${requests.length}`);
    if ('throws' in step) throw step.throws;
    if ('hang' in step) return new Promise<TOutput>(() => {});
    if ('fn' in step) return step.fn(request, context);
    return step.value;
  };
  return Object.assign(generate, { requests, contexts });
}

/** Shorthand: a script of plain values. */
export function answers<TOutput>(...values: TOutput[]): Scripted<TOutput> {
  return scripted(values.map((value) => ({ value })));
}

export type Decision = 'execute' | 'defer' | Omit<FailedCall, 'id' | 'tool'>;

export interface RecordingGate<TState> extends ToolGateLike<TState> {
  /** Every batch of calls received. */
  readonly batches: ToolCall[][];
  /** How many times each call id was executed (a side effect). */
  readonly runs: Map<string, number>;
}

/** A gate that decides per call, counts executions per id and records every batch. */
export function recordingGate<TState = unknown>(
  decide: (call: ToolCall) => Decision = () => 'execute',
): RecordingGate<TState> {
  const batches: ToolCall[][] = [];
  const runs = new Map<string, number>();
  const gate: ToolGateLike<TState> = async (calls) => {
    batches.push([...calls]);
    const executed = [];
    const failed_calls: FailedCall[] = [];
    const deferred = [];
    for (const call of calls) {
      const decision = decide(call);
      if (decision === 'execute') {
        runs.set(call.id, (runs.get(call.id) ?? 0) + 1);
        executed.push({ id: call.id, tool: call.tool, result: 'ok' });
      } else if (decision === 'defer')
        deferred.push({ id: call.id, tool: call.tool, reason: 'awaiting confirmation' });
      else failed_calls.push({ id: call.id, tool: call.tool, ...decision });
    }
    return { executed, feedback: { failed_calls }, deferred };
  };
  return Object.assign(gate, { batches, runs });
}

export const hpCall = (id: string, delta: number): ToolCall => ({
  id,
  tool: 'hp_delta',
  args: { target_character_id: 'pc_1', delta, cause: 'arrow' },
});

export const moveCall = (id: string, to: string): ToolCall => ({
  id,
  tool: 'move',
  args: { actor_id: 'pc_1', from_area_id: 'market', to_area_id: to },
});
