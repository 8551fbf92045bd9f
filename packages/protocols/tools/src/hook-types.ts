import type { ValidationIssue } from '@parley/core';
import type { DisableUntil, ToolRefusalCode } from './types.js';

// What the host lends a tool gate: its policies, its confirmation, its repair hook and its texts.

/**
 * What a policy is asked about: the call (with its validated arguments), the host's context for
 * the batch, the turn and the time.
 *
 * @example
 * ```ts
 * import type { ToolPolicyInput } from '@parley/tools';
 *
 * const inCombat = (input: ToolPolicyInput<{ phase: string }>): boolean => input.context.phase === 'combat';
 * ```
 */
export interface ToolPolicyInput<TContext> {
  readonly call: { readonly id: string; readonly tool: string; readonly reason?: string | undefined };
  /** The arguments after validation (the args schema's output). */
  readonly args: unknown;
  readonly context: TContext;
  readonly turn: number;
  /** The gate clock's time, epoch ms. */
  readonly now: number;
}

/**
 * A policy's refusal: `message`, the reason in words the model can act on (a text naming the policy
 * when absent), optionally one of the tool's own reasons, and optionally a time or turn until which
 * the tool is disabled.
 *
 * @example
 * ```ts
 * import type { ToolPolicyRefusal } from '@parley/tools';
 *
 * const locked: ToolPolicyRefusal = { message: '区域移动锁未解除', toolReason: 'area_locked', disableUntil: { turn: 8 } };
 * ```
 */
export interface ToolPolicyRefusal {
  /** Why the call is refused, in words the model can act on. */
  readonly message?: string | undefined;
  /** @deprecated Use `message`; a policy's `reason` is read for one more minor version. */
  readonly reason?: string | undefined;
  readonly toolReason?: string | undefined;
  readonly disableUntil?: DisableUntil | undefined;
}

/**
 * A rule of the allowlist that depends on the current state: the machine state, the settings
 * snapshot, the turn phase… It answers nothing (or `true`) to allow, `false` or a
 * {@link ToolPolicyRefusal} to refuse. It applies to the named `tools`, or to all when omitted.
 *
 * @example
 * ```ts
 * import type { ToolPolicy } from '@parley/tools';
 *
 * const movementLock: ToolPolicy<{ state: string }, 'move'> = {
 *   name: 'movement_lock',
 *   tools: ['move'],
 *   check: ({ context }) =>
 *     context.state === 'combat' ? { message: 'Movement is locked during combat', toolReason: 'area_locked' } : undefined,
 * };
 * ```
 */
export interface ToolPolicy<TContext = unknown, TName extends string = string> {
  readonly name: string;
  readonly tools?: readonly TName[];
  /** Allows the call (`true` or `undefined`), refuses it (`false`), or refuses it with a reason. */
  check(
    input: ToolPolicyInput<TContext>,
  ): ToolPolicyRefusal | boolean | undefined | Promise<ToolPolicyRefusal | boolean | undefined>;
}

/**
 * What a confirmation function is asked: the call, its arguments, a summary for people, the
 * context and the addressing the batch was given.
 *
 * @example
 * ```ts
 * import type { ToolConfirmRequest } from '@parley/tools';
 *
 * const prompt = (request: ToolConfirmRequest<unknown>): string => `Run ${request.summary}?`;
 * ```
 */
export interface ToolConfirmRequest<TContext> {
  readonly call: { readonly id: string; readonly tool: string; readonly reason?: string | undefined };
  /** The arguments the executor will get if confirmed (the args schema's output), as a copy. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly summary: string;
  readonly context: TContext;
  readonly turn: number;
  readonly sessionKey: string | undefined;
  readonly requester: string | undefined;
  readonly signal: AbortSignal | undefined;
}

/**
 * A confirmation function's answer: `true` / `'confirmed'` to run, `false` / `'declined'` not to,
 * `'timed_out'` when nobody answered, `'failed'` when the person could not be asked (the prompt
 * could not be sent): the call is refused `confirmation_failed`, never reported as declined.
 *
 * @example
 * ```ts
 * import type { ToolConfirmAnswer } from '@parley/tools';
 *
 * const answer: ToolConfirmAnswer = 'timed_out';
 * ```
 */
export type ToolConfirmAnswer = boolean | 'confirmed' | 'declined' | 'timed_out' | 'failed';

/**
 * A host's own way to ask for confirmation, instead of a `@parley/confirm` gate.
 *
 * @example
 * ```ts
 * import type { ToolConfirmFn } from '@parley/tools';
 *
 * const askNobody: ToolConfirmFn<unknown> = () => 'declined';
 * ```
 */
export type ToolConfirmFn<TContext> = (
  request: ToolConfirmRequest<TContext>,
) => ToolConfirmAnswer | Promise<ToolConfirmAnswer>;

/**
 * What a repair hook is given: why the call is invalid, the call as it stands, the validation
 * issues (for `invalid_args`), the canonical tool names, the context and the turn.
 *
 * @example
 * ```ts
 * import type { ToolRepairInput } from '@parley/tools';
 *
 * const isNameProblem = (input: ToolRepairInput<unknown>): boolean => input.problem === 'unknown_tool';
 * ```
 */
export interface ToolRepairInput<TContext> {
  readonly problem: 'unknown_tool' | 'invalid_args';
  readonly call: { readonly id: string; readonly tool: string; readonly args: unknown };
  readonly issues: readonly ValidationIssue[];
  readonly tools: readonly string[];
  readonly context: TContext;
  readonly turn: number;
}

/**
 * Turns an invalid call into a valid one (a new tool name and/or arguments), or gives up by
 * returning nothing. It runs at most once per call; the repaired call is judged like any other, and
 * the repair is recorded.
 *
 * @example
 * ```ts
 * import type { ToolRepairHook } from '@parley/tools';
 *
 * const lowerCaseNames: ToolRepairHook<unknown> = ({ problem, call, tools }) =>
 *   problem === 'unknown_tool' && tools.includes(call.tool.toLowerCase())
 *     ? { tool: call.tool.toLowerCase(), args: call.args }
 *     : undefined;
 * ```
 */
export type ToolRepairHook<TContext> = (
  input: ToolRepairInput<TContext>,
) =>
  | { readonly tool?: string; readonly args?: unknown }
  | undefined
  | Promise<{ readonly tool?: string; readonly args?: unknown } | undefined>;

/**
 * The facts a refusal message is written from.
 *
 * @example
 * ```ts
 * import type { ToolRefusalInfo } from '@parley/tools';
 *
 * const text = (info: ToolRefusalInfo): string => `${info.tool}: ${info.code}`;
 * ```
 */
export interface ToolRefusalInfo {
  readonly id: string;
  readonly tool: string;
  readonly code: ToolRefusalCode;
  /** The default English text. */
  readonly text: string;
  readonly toolReason?: string | undefined;
  readonly disabledUntil?: string | undefined;
  readonly issues?: readonly ValidationIssue[] | undefined;
}
