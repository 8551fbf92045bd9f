import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AuthorizeResult, ConfirmDecision, ResumeHandler } from '@parley/confirm';
import { McpBridgeError } from './errors.js';
import { toCallToolResult } from './results.js';

/**
 * What happened to a call whose confirmation was answered after a restart: it `ran` (with the
 * server's result), or it did not, with the decision's outcome or `authorize`'s refusal code.
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
    };

/**
 * Options for {@link mcpResumeHandlers}.
 *
 * @example
 * ```ts
 * import type { McpResumeOptions } from '@parley/mcp';
 *
 * const options: McpResumeOptions = { onResumed: (event) => console.log(event.ran) };
 * ```
 */
export interface McpResumeOptions {
  /** Told what became of each resumed call (e.g. to tell the model on its next turn). */
  readonly onResumed?: (event: McpResumed) => void | Promise<void>;
  /** Passed to `client.callTool`. */
  readonly requestOptions?: RequestOptions;
}

/**
 * Makes the `resume` handlers of a `@parley/confirm` gate for a server's tools, so a call whose
 * confirmation was pending when the process stopped runs when the person answers after the
 * restart: exactly once, with the exact arguments confirmed, and only if `authorize` agrees
 * (confirmed, before the deadline, not used yet).
 *
 * Use it when creating the confirm gate of a restarted process, with the same store as before and
 * a connected client; a call resumed here does not go through the tool gate again.
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
export function mcpResumeHandlers(
  client: Client,
  tools: readonly (string | Tool)[],
  options: McpResumeOptions = {},
): Readonly<Record<string, ResumeHandler>> {
  if (typeof client?.callTool !== 'function') {
    throw new McpBridgeError('invalid_argument', 'mcpResumeHandlers needs an MCP client');
  }
  const handler: ResumeHandler = async (decision, gate) => {
    const report = async (event: McpResumed): Promise<void> => {
      await options.onResumed?.(event);
    };
    if (decision.outcome !== 'confirmed') return report({ ran: false, decision, code: decision.outcome });
    const auth = await gate.authorize(decision, decision.action);
    if (!auth.ok) return report({ ran: false, decision, code: auth.code });
    const args = decision.action.args as Record<string, unknown>; // the tool gate asks with object arguments
    const result = await client.callTool(
      { name: decision.action.name, arguments: args },
      undefined,
      options.requestOptions,
    );
    return report({ ran: true, decision, result: toCallToolResult(result) });
  };
  return Object.fromEntries(tools.map((tool) => [typeof tool === 'string' ? tool : tool.name, handler]));
}
