import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AuthorizeResult, ConfirmDecision, ResumeHandler } from '@parley/confirm';
import { type Clock, systemClock } from '@parley/core';
import type { FailedToolCall, ToolPolicy } from '@parley/tools';
import { McpBridgeError } from './errors.js';
import { toCallToolResult, toRefusalResult } from './results.js';

/**
 * What happened to a call whose confirmation was answered after a restart: it `ran` (with the
 * server's result), or it did not, with the decision's outcome, `authorize`'s refusal code, or the
 * tool gate's refusal when the allowlist or a policy refuses the call now (then `result` is the
 * refusal as a tool result the model can read).
 *
 * @example
 * ```ts
 * import type { McpResumed } from '@parley/mcp';
 *
 * const log = (event: McpResumed): string => (event.ran ? 'ran' : `not run: ${event.code}`);
 * ```
 */
export type McpResumed =
  | { readonly ran: true; readonly decision: ConfirmDecision; readonly result: CallToolResult }
  | {
      readonly ran: false;
      readonly decision: ConfirmDecision;
      readonly code:
        | Exclude<ConfirmDecision['outcome'], 'confirmed'>
        | Extract<AuthorizeResult, { ok: false }>['code'];
    }
  | {
      readonly ran: false;
      readonly decision: ConfirmDecision;
      readonly code: 'unknown_tool' | 'not_allowed' | 'policy_error';
      /** The refusal as an MCP tool result (`isError: true`, `tool_feedback`). */
      readonly result: CallToolResult;
    };

/**
 * Options for {@link mcpResumeHandlers}.
 *
 * @example
 * ```ts
 * import type { McpResumeOptions } from '@parley/mcp';
 *
 * const options: McpResumeOptions<{ frozen: boolean }> = {
 *   policies: [{ name: 'freeze', check: ({ context }) => (context.frozen ? { message: 'Changes are frozen' } : undefined) }],
 *   context: () => ({ frozen: false }),
 *   onResumed: (event) => console.log(event.ran),
 * };
 * ```
 */
export interface McpResumeOptions<TContext = undefined> {
  /** Told what became of each resumed call (e.g. to tell the model on its next turn). */
  readonly onResumed?: (event: McpResumed) => void | Promise<void>;
  /** Passed to `client.callTool`. */
  readonly requestOptions?: RequestOptions;
  /**
   * The tools a call may run now, read when the answer arrives (the allowlist of the moment);
   * every tool given to {@link mcpResumeHandlers} by default. Another tool is refused `unknown_tool`.
   */
  readonly allow?: (decision: ConfirmDecision) => readonly string[] | Promise<readonly string[]>;
  /** The tool gate's policies, checked again against the state of the moment the answer arrives. */
  readonly policies?: readonly ToolPolicy<TContext>[];
  /** The host's state when the answer arrives, given to the policies as their `context`. */
  readonly context?: (decision: ConfirmDecision) => TContext | Promise<TContext>;
  /** The turn policies are told; 0 by default. */
  readonly turn?: () => number;
  /** The policies' `now`; the system clock by default. */
  readonly clock?: Clock;
}

/**
 * Makes the `resume` handlers of a `@parley/confirm` gate for a server's tools, so a call whose
 * confirmation was pending when the process stopped runs when the person answers after the
 * restart: exactly once, with the exact arguments confirmed, only if `authorize` agrees
 * (confirmed, before the deadline, not used yet) and the allowlist and the policies (`allow`,
 * `policies` over `context()`) still let it run now. A refused call has used its confirmation.
 *
 * Use it when creating the confirm gate of a restarted process, with the same store as before and
 * a connected client. Give it the tool gate's policies and a `context` that reads the current
 * state: the call is decided when the answer arrives, not when it was proposed.
 *
 * @throws McpBridgeError `invalid_argument` without a client.
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { createMessageBus } from '@parley/bus';
 * import { createConfirmGate } from '@parley/confirm';
 * import { mcpResumeHandlers } from '@parley/mcp';
 *
 * const client = new Client({ name: 'bot', version: '1.0.0' }); // connect it before answers arrive
 * const confirm = createConfirmGate({
 *   bus: createMessageBus(),
 *   resume: mcpResumeHandlers(client, ['delete_file'], { onResumed: (event) => console.log(event.ran) }),
 * });
 * await confirm.close();
 * ```
 */
export function mcpResumeHandlers<TContext = undefined>(
  client: Client,
  tools: readonly (string | Tool)[],
  options: McpResumeOptions<TContext> = {},
): Readonly<Record<string, ResumeHandler>> {
  if (typeof client?.callTool !== 'function') {
    throw new McpBridgeError('invalid_argument', 'mcpResumeHandlers needs an MCP client');
  }
  const names = tools.map((tool) => (typeof tool === 'string' ? tool : tool.name));
  const handler: ResumeHandler = async (decision, gate) => {
    const report = async (event: McpResumed): Promise<void> => {
      await options.onResumed?.(event);
    };
    if (decision.outcome !== 'confirmed') return report({ ran: false, decision, code: decision.outcome });
    const auth = await gate.authorize(decision, decision.action); // uses it: one resume, whatever follows
    if (!auth.ok) return report({ ran: false, decision, code: auth.code });
    const refused = await recheck(decision, names, options);
    if (refused !== undefined) {
      return report({ ran: false, decision, code: refused.code, result: toRefusalResult(refused) });
    }
    const args = decision.action.args as Record<string, unknown>; // the tool gate asks with object arguments
    const result = await client.callTool(
      { name: decision.action.name, arguments: args },
      undefined,
      options.requestOptions,
    );
    return report({ ran: true, decision, result: toCallToolResult(result) });
  };
  return Object.fromEntries(names.map((name) => [name, handler]));
}

type Refusal = FailedToolCall & { readonly code: 'unknown_tool' | 'not_allowed' | 'policy_error' };

/** The allowlist and the policies, asked again now; the first refusal, or nothing. */
async function recheck<TContext>(
  decision: ConfirmDecision,
  names: readonly string[],
  options: McpResumeOptions<TContext>,
): Promise<Refusal | undefined> {
  const tool = decision.action.name;
  const id = decision.id;
  try {
    const allowed = options.allow === undefined ? names : await options.allow(decision);
    if (!allowed.includes(tool)) {
      const reason = `The tool "${tool}" may not be called now; allowed: ${allowed.join(', ') || 'none'}`;
      return { id, tool, status: 'rejected', code: 'unknown_tool', reason };
    }
    if (options.policies === undefined || options.policies.length === 0) return undefined;
    const context = (await options.context?.(decision)) as TContext; // undefined when the host has none
    for (const policy of options.policies) {
      if (policy.tools !== undefined && !policy.tools.includes(tool)) continue;
      const verdict = await policy.check({
        call: { id, tool },
        args: decision.action.args,
        context,
        turn: options.turn?.() ?? 0,
        now: (options.clock ?? systemClock).now(),
      });
      if (verdict === undefined || verdict === true) continue;
      const fallback = `Refused by the policy "${policy.name}"`;
      const reason = verdict === false ? fallback : (verdict.message ?? verdict.reason ?? fallback);
      const toolReason = verdict === false ? undefined : verdict.toolReason;
      return {
        id,
        tool,
        status: 'rejected',
        code: 'not_allowed',
        reason,
        ...(toolReason === undefined ? {} : { tool_reason: toolReason }),
      };
    }
    return undefined;
  } catch {
    const reason = 'Checking the call again after the restart failed; the call was not run';
    return { id, tool, status: 'error', code: 'policy_error', reason };
  }
}
