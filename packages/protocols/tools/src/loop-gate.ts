import { copyWith } from '@parley/core';
import type { ToolGate, ToolRunOptions, ToolRunOptionsWithoutContext } from './gate-types.js';
import type { ToolBatchResult, ToolCallProposal } from './types.js';

/**
 * What a retry loop (such as `@parley/conflict`'s) hands its tool gate for an attempt: at least the
 * authoritative state, the attempt number and the run's signal. Declared here structurally, so this
 * package does not depend on the loop's package.
 *
 * @example
 * ```ts
 * import type { LoopGateContext } from '@parley/tools';
 *
 * const firstTry = (context: LoopGateContext<unknown>): boolean => context.attempt === 1;
 * ```
 */
export interface LoopGateContext<TState> {
  readonly state: TState;
  readonly attempt: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * A tool gate in the function shape a retry loop calls: `(calls, loopContext) => result`. It
 * satisfies `ToolGateLike` of `@parley/conflict`.
 *
 * @example
 * ```ts
 * import type { LoopGate } from '@parley/tools';
 *
 * const none: LoopGate<unknown> = async () => ({ executed: [], feedback: { failed_calls: [] }, records: [] });
 * ```
 */
export type LoopGate<TState> = (
  calls: readonly ToolCallProposal[],
  context: LoopGateContext<TState>,
) => Promise<ToolBatchResult>;

/**
 * Adapts a tool gate to a retry loop: each attempt's calls are processed with the run options
 * `select` derives from the loop's context (turn, the host's context from the state, addressing);
 * the loop's signal is passed on unless `select` sets one.
 *
 * Use it to pass a gate as `gate` to `createConflictLoop` from `@parley/conflict`. Retries keep
 * the turn, so a call id that already ran is never run again (the same content is replayed; other
 * content under that id is refused `call_id_reused`).
 *
 * @example
 * ```ts
 * import { defineTool, createToolGate, toLoopGate } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' });
 * const gate = createToolGate({ tools: [ping], allowlist: ['ping'] });
 * const loopGate = toLoopGate(gate, (loop: { state: { turn: number } }) => ({ turn: loop.state.turn }));
 * const result = await loopGate([{ id: 'c1', tool: 'ping', args: {} }], { state: { turn: 1 }, attempt: 1, signal: undefined });
 * console.log(result.executed[0]?.result); // pong
 * ```
 */
export function toLoopGate<TState, TContext>(
  gate: ToolGate<string, TContext>,
  select: (
    context: LoopGateContext<TState>,
  ) => ToolRunOptions<TContext> | (undefined extends TContext ? ToolRunOptionsWithoutContext : never),
): LoopGate<TState> {
  return (calls, context) => {
    // Safe: `select` may leave the context out only when TContext admits undefined (never otherwise).
    const run = select(context) as ToolRunOptions<TContext>;
    return gate.process(calls, run.signal === undefined ? copyWith(run, { signal: context.signal }) : run);
  };
}
