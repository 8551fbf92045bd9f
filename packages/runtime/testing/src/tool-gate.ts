import type {
  AppliedAction,
  DeferredCall,
  FailedCall,
  ToolCall,
  ToolGateContext,
  ToolGateLike,
} from '@parley/conflict';

/**
 * What a {@link FakeToolGate} does with one call: execute it, defer it (waiting on a person), or
 * fail it with a status and a reason the model can act on.
 *
 * @example
 * ```ts
 * import type { FakeToolDecision } from '@parley/testing';
 *
 * const locked: FakeToolDecision = { status: 'rejected', reason: 'area_locked' };
 * ```
 */
export type FakeToolDecision = 'execute' | 'defer' | Omit<FailedCall, 'id' | 'tool'>;

/**
 * A tool gate for `@parley/conflict`'s loop that decides per call on cue, counts executions per
 * call id and records every batch, so a test can assert that a side effect ran at most once.
 *
 * @example
 * ```ts
 * import { createFakeToolGate, type FakeToolGate } from '@parley/testing';
 *
 * const gate: FakeToolGate = createFakeToolGate();
 * console.log(gate.batches.length, gate.runs.size); // 0 0
 * ```
 */
export interface FakeToolGate<TState = unknown> extends ToolGateLike<TState> {
  /** Every batch of calls received, in order. */
  readonly batches: readonly (readonly ToolCall[])[];
  /** The context of every batch. */
  readonly contexts: readonly ToolGateContext<TState>[];
  /** How many times each call id was executed. */
  readonly runs: ReadonlyMap<string, number>;
  /** Every executed call, in order. */
  readonly executed: readonly AppliedAction[];
}

/**
 * Creates a {@link FakeToolGate}: a stand-in for the real `@parley/tools` gate where the test
 * decides, per call, what happens (a decision for every call, or a function of the call).
 *
 * Executed calls come back as `{ id, tool, result }`, with `result` from the option of that name
 * (`'ok'` by default).
 *
 * @example
 * ```ts
 * import { createFakeToolGate } from '@parley/testing';
 *
 * const gate = createFakeToolGate((call) =>
 *   call.tool === 'delete_save' ? 'defer' : { status: 'rejected', reason: 'tool not enabled' },
 * );
 * const result = await gate([{ id: 'c1', tool: 'move', args: {} }], {
 *   state: {},
 *   attempt: 1,
 *   proposal: { text: '' },
 *   applied: [],
 *   signal: undefined,
 * });
 * console.log(result.feedback?.failed_calls[0]?.reason); // tool not enabled
 * ```
 */
export function createFakeToolGate<TState = unknown>(
  decide:
    | FakeToolDecision
    | ((call: ToolCall, context: ToolGateContext<TState>) => FakeToolDecision) = 'execute',
  options: { readonly result?: (call: ToolCall) => unknown } = {},
): FakeToolGate<TState> {
  const batches: (readonly ToolCall[])[] = [];
  const contexts: ToolGateContext<TState>[] = [];
  const runs = new Map<string, number>();
  const executedAll: AppliedAction[] = [];
  const result = options.result ?? (() => 'ok');
  const gate: ToolGateLike<TState> = async (calls, context) => {
    batches.push([...calls]);
    contexts.push(context);
    const executed: AppliedAction[] = [];
    const failed_calls: FailedCall[] = [];
    const deferred: DeferredCall[] = [];
    for (const call of calls) {
      const decision = typeof decide === 'function' ? decide(call, context) : decide;
      if (decision === 'execute') {
        runs.set(call.id, (runs.get(call.id) ?? 0) + 1);
        const applied = { id: call.id, tool: call.tool, result: result(call) };
        executed.push(applied);
        executedAll.push(applied);
      } else if (decision === 'defer') {
        deferred.push({ id: call.id, tool: call.tool, reason: 'awaiting confirmation' });
      } else failed_calls.push({ id: call.id, tool: call.tool, ...decision });
    }
    return { executed, feedback: { failed_calls }, deferred };
  };
  return Object.assign(gate, { batches, contexts, runs, executed: executedAll });
}
