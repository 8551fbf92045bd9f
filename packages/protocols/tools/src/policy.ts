import type { InferOutput, StandardSchemaV1 } from '@parley/core';
import type { ToolDefinition } from './define.js';
import { ToolsError } from './errors.js';
import type { ToolPolicy, ToolPolicyInput, ToolPolicyRefusal } from './hook-types.js';

/**
 * What the check of a one-tool policy receives: the {@link ToolPolicyInput} with `args` typed by
 * the tool's args schema (its output, after validation).
 *
 * @example
 * ```ts
 * import type { TypedPolicyInput } from '@parley/tools';
 *
 * const far = (input: TypedPolicyInput<{ state: string }, { to_area_id: string }>): boolean =>
 *   input.args.to_area_id === 'moon';
 * ```
 */
export interface TypedPolicyInput<TContext, TArgs> extends Omit<ToolPolicyInput<TContext>, 'args'> {
  readonly args: TArgs;
}

/**
 * A refusal from a one-tool policy, whose `toolReason` must be one of the tool's declared reasons.
 *
 * @example
 * ```ts
 * import type { TypedPolicyRefusal } from '@parley/tools';
 *
 * const locked: TypedPolicyRefusal<'area_locked' | 'no_path'> = { reason: 'The door is locked', toolReason: 'area_locked' };
 * ```
 */
export interface TypedPolicyRefusal<TReason extends string> extends Omit<ToolPolicyRefusal, 'toolReason'> {
  readonly toolReason?: TReason | undefined;
}

/**
 * Options for {@link definePolicy}.
 *
 * @example
 * ```ts
 * import type { DefinePolicyOptions } from '@parley/tools';
 *
 * const options: DefinePolicyOptions = { name: 'movement_lock' };
 * ```
 */
export interface DefinePolicyOptions {
  /** The policy's name in audits and errors; `<tool>_policy` by default. */
  readonly name?: string;
}

/**
 * Defines a state-dependent policy for one tool, with that tool's validated arguments typed in
 * the check (a policy over several tools gets `args: unknown`, as their schemas differ).
 *
 * Use it for rules such as "no movement while the area is locked" or "no HP change above the
 * cap": pass the result in the gate's `policies`. The check runs only for calls of this tool, after
 * their arguments are valid; `toolReason` is typed as one of the tool's declared reasons.
 *
 * @throws ToolsError `invalid_argument` when `tool` is not a tool definition, `check` is not a
 * function or `name` is empty.
 * @example
 * ```ts
 * import { createToolGate, definePolicy, defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const move = defineTool({
 *   name: 'move', description: 'Moves an actor', reasons: ['area_locked'],
 *   args: z.object({ actor_id: z.string(), to_area_id: z.string() }),
 *   execute: (args) => ({ area: args.to_area_id }),
 * });
 * const vaultLock = definePolicy(move, ({ args, context }: { args: { to_area_id: string }; context: { vaultOpen: boolean } }) =>
 *   args.to_area_id === 'vault' && !context.vaultOpen ? { message: 'The vault is locked', toolReason: 'area_locked' } : undefined,
 * );
 * const gate = createToolGate({ tools: [move], allowlist: ['move'], policies: [vaultLock] });
 * const result = await gate.process(
 *   [{ id: 'c1', tool: 'move', args: { actor_id: 'pc_1', to_area_id: 'vault' } }],
 *   { turn: 1, context: { vaultOpen: false } },
 * );
 * console.log(result.feedback.failed_calls[0]?.tool_reason); // area_locked
 * ```
 */
export function definePolicy<
  TName extends string,
  TArgs extends StandardSchemaV1,
  TReason extends string,
  TContext = unknown,
>(
  tool: ToolDefinition<TName, TArgs, TReason, unknown, never>,
  check: (
    input: TypedPolicyInput<TContext, InferOutput<TArgs>>,
  ) =>
    | TypedPolicyRefusal<NoInfer<TReason>>
    | boolean
    | undefined
    | Promise<TypedPolicyRefusal<NoInfer<TReason>> | boolean | undefined>,
  options: DefinePolicyOptions = {},
): ToolPolicy<TContext, TName> {
  if (typeof tool !== 'object' || tool === null || tool.kind !== 'parley.tool') {
    throw new ToolsError('invalid_argument', 'definePolicy expects a tool made by defineTool');
  }
  if (typeof check !== 'function') throw new ToolsError('invalid_argument', 'check must be a function');
  const name = options.name ?? `${tool.name}_policy`;
  if (typeof name !== 'string' || name === '') {
    throw new ToolsError('invalid_argument', 'a policy name must be a non-empty string');
  }
  return Object.freeze({
    name,
    tools: Object.freeze([tool.name]),
    // The gate calls this only for `tool`, after its args schema validated them: args is its output.
    check: (input: ToolPolicyInput<TContext>) =>
      check(input as TypedPolicyInput<TContext, InferOutput<TArgs>>),
  });
}
