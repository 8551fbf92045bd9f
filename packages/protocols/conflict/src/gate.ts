import type { AppliedAction, DeferredCall, Proposal, ToolCall, ToolFeedback } from './types.js';

/**
 * What the conflict loop hands a tool gate besides the calls.
 *
 * @example
 * ```ts
 * import type { ToolGateContext } from '@parley/conflict';
 *
 * function isRetry(context: ToolGateContext<unknown>): boolean {
 *   return context.attempt > 1;
 * }
 * ```
 */
export interface ToolGateContext<TState> {
  /** The authoritative state read for this attempt. */
  readonly state: TState;
  /** 1-based attempt number. */
  readonly attempt: number;
  /** The whole proposal the calls came from (already checked by every detector). */
  readonly proposal: Proposal;
  /** Calls executed in earlier attempts of this run. */
  readonly applied: readonly AppliedAction[];
  readonly signal: AbortSignal | undefined;
}

/**
 * What a tool gate answers: the calls it executed, the calls it refused or that failed (the
 * reference `tool_feedback`), and optionally calls it holds (e.g. awaiting a person's confirmation).
 * Every call it was given must appear in exactly one of the three lists.
 *
 * @example
 * ```ts
 * import type { ToolGateResult } from '@parley/conflict';
 *
 * const result: ToolGateResult = {
 *   executed: [{ id: 'call_1', tool: 'hp_delta', result: { hp: 15 } }],
 *   feedback: { failed_calls: [{ id: 'call_2', tool: 'move', status: 'rejected', reason: 'area locked' }] },
 * };
 * ```
 */
export interface ToolGateResult {
  readonly executed: readonly AppliedAction[];
  readonly feedback?: ToolFeedback | undefined;
  readonly deferred?: readonly DeferredCall[] | undefined;
}

/**
 * The tool gate the conflict loop calls once an attempt passes every detector: it judges the
 * proposed calls (allowlist, args schema, state, settings), executes the allowed ones, and reports
 * the rest as `tool_feedback`.
 *
 * It is a structural type, so this package does not depend on `@parley/tools`: a gate from there,
 * or any function of this shape, is passed as `gate` directly. Contract:
 * - it is called only for an attempt no detector objected to, and only with calls not equal (same
 *   tool, same canonical arguments, matched one to one) to a call it executed or holds earlier in
 *   the run, so an effect re-sent under a fresh id is not run twice; a call id it saw earlier
 *   with other content is refused by the loop (`call_id_reused`) and never reaches it;
 * - every call it receives is answered exactly once, in `executed`, `feedback.failed_calls` or
 *   `deferred`, and it answers no other id;
 * - a refusal is data (`status: 'rejected'`), and so is a tool that failed when run
 *   (`status: 'error'`). Throwing means the gate itself broke: the run rejects with `gate_failed`
 *   and is not retried, since what was executed is unknown;
 * - calls it executed stay executed, even when another call of the same attempt is refused and the
 *   model is asked to try again: the retry feedback lists them in `already_applied`.
 *
 * @example
 * ```ts
 * import type { ToolGateLike } from '@parley/conflict';
 *
 * interface Campaign { locked: boolean; hp: number }
 *
 * const gate: ToolGateLike<Campaign> = async (calls, { state }) => {
 *   const executed = [];
 *   const failed_calls = [];
 *   for (const call of calls) {
 *     if (call.tool === 'hp_delta') {
 *       state.hp += Number(call.args['delta']);
 *       executed.push({ id: call.id, tool: call.tool, args: call.args });
 *     } else {
 *       failed_calls.push({ id: call.id, tool: call.tool, status: 'rejected' as const, reason: 'tool not enabled' });
 *     }
 *   }
 *   return { executed, feedback: { failed_calls } };
 * };
 * ```
 */
export type ToolGateLike<TState = unknown> = (
  calls: readonly ToolCall[],
  context: ToolGateContext<TState>,
) => Promise<ToolGateResult> | ToolGateResult;
