import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallProposal, ToolGate, ToolRunOptions } from '@parley/tools';
import { toCallToolResult, toRefusalResult } from './results.js';

/** The tool names every function-calling API accepts, as `@parley/tools` requires them. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The most pages of `tools/list` read (a server that never stops paging is cut there). */
export const MAX_LIST_PAGES = 100;

/**
 * The MCP specification's reading of tool annotations: a tool may change its environment unless
 * it says `readOnlyHint: true`, and a tool that may is destructive unless it says
 * `destructiveHint: false`.
 */
export function isDestructive(tool: Tool): boolean {
  return tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint !== false;
}

/** Runs one call through the gate and answers it as an MCP tool result. */
export async function runTurn<TContext>(
  gate: ToolGate<string, TContext>,
  call: ToolCallProposal,
  run: ToolRunOptions<TContext>,
): Promise<CallToolResult> {
  const result = await gate.process([call], run);
  const executed = result.executed[0];
  if (executed !== undefined) return toCallToolResult(executed.result);
  // One call in, one outcome out: it either ran or failed.
  const failed = result.feedback.failed_calls[0] as (typeof result.feedback.failed_calls)[number];
  return toRefusalResult(failed);
}
