import { type Clock, type StandardSchemaV1, systemClock, validateAsync } from '@parley/core';
import type { FailedToolCall, ToolPolicy } from '@parley/tools';
import {
  defineToolInputGuardrail,
  ToolGuardrailFunctionOutputFactory,
  type ToolInputGuardrailDefinition,
} from '@openai/agents';

/**
 * Options for {@link toInputGuardrail}.
 *
 * @example
 * ```ts
 * import type { PolicyGuardrailOptions } from '@parley/openai-agents';
 *
 * const options: PolicyGuardrailOptions<{ readOnly: boolean }> = { policies: [] };
 * ```
 */
export interface PolicyGuardrailOptions<TContext> {
  /** The Parley tool policies, checked in order; the first refusal wins. */
  readonly policies: readonly ToolPolicy<TContext>[];
  /** Checked first: arguments it refuses are answered `invalid_args` with the issues. */
  readonly args?: StandardSchemaV1;
  /** The guardrail's name in the SDK's results; `parley_policies` by default. */
  readonly name?: string;
  /** The turn policies are told; 0 by default. */
  readonly turn?: number;
  readonly clock?: Clock;
}

/**
 * Turns Parley tool policies into an Agents JS tool input guardrail: before a function tool runs
 * (and before its approval is asked), its arguments are checked against the schema and each policy,
 * and a refusal is answered to the model as the tool's output, a `tool_feedback` JSON with the
 * reason and code, so it can correct the call instead of retrying it blindly.
 *
 * Use it in `tool({ …, inputGuardrails: [toInputGuardrail({ policies })] })`. Policies receive the
 * run's context (`RunContext.context`) as their `context`. A policy that throws refuses the call
 * (`policy_error`): fail closed.
 *
 * @example
 * ```ts
 * import { toInputGuardrail } from '@parley/openai-agents';
 *
 * const guardrail = toInputGuardrail<{ readOnly: boolean }>({
 *   policies: [{ name: 'read_only', check: ({ context }) => (context.readOnly ? { message: 'read-only' } : undefined) }],
 * });
 * console.log(guardrail.type, guardrail.name); // tool_input parley_policies
 * ```
 */
export function toInputGuardrail<TContext>(
  options: PolicyGuardrailOptions<TContext>,
): ToolInputGuardrailDefinition<TContext> {
  const clock = options.clock ?? systemClock;
  return defineToolInputGuardrail<TContext>({
    name: options.name ?? 'parley_policies',
    run: async ({ context, toolCall }) => {
      const refuse = (failed: Omit<FailedToolCall, 'id' | 'tool'>) =>
        ToolGuardrailFunctionOutputFactory.rejectContent(
          JSON.stringify({
            tool_feedback: { failed_calls: [{ id: toolCall.callId, tool: toolCall.name, ...failed }] },
          }),
        );
      let args: unknown;
      try {
        args = JSON.parse(toolCall.arguments);
      } catch {
        return refuse({ status: 'rejected', code: 'invalid_args', reason: 'The arguments are not JSON' });
      }
      if (options.args !== undefined) {
        const checked = await validateAsync(options.args, args);
        if (!checked.ok) {
          const issues = checked.issues
            .map((issue) => `${issue.pathText || '(root)'}: ${issue.message}`)
            .join('; ');
          return refuse({
            status: 'rejected',
            code: 'invalid_args',
            reason: `The arguments are invalid: ${issues}`,
            issues: checked.issues,
          });
        }
        args = checked.value;
      }
      for (const policy of options.policies) {
        if (policy.tools !== undefined && !policy.tools.includes(toolCall.name)) continue;
        let verdict: Awaited<ReturnType<ToolPolicy<TContext>['check']>>;
        try {
          verdict = await policy.check({
            call: { id: toolCall.callId, tool: toolCall.name },
            args,
            context: context.context,
            turn: options.turn ?? 0,
            now: clock.now(),
          });
        } catch {
          return refuse({
            status: 'error',
            code: 'policy_error',
            reason: `The policy "${policy.name}" failed; the call was not run`,
          });
        }
        if (verdict === undefined || verdict === true) continue;
        const fallback = `Refused by the policy "${policy.name}"`;
        const reason = verdict === false ? fallback : (verdict.message ?? verdict.reason ?? fallback);
        return refuse({
          status: 'rejected',
          code: 'not_allowed',
          reason,
          ...(verdict !== false && verdict.toolReason !== undefined
            ? { tool_reason: verdict.toolReason }
            : {}),
        });
      }
      return ToolGuardrailFunctionOutputFactory.allow();
    },
  });
}
