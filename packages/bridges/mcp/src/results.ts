import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FailedToolCall } from '@parley/tools';

/**
 * Turns a refused call into the tool result the model reads: `isError: true`, the reason as text
 * (what to change), and the reference `tool_feedback` as structured content.
 *
 * Use it where a Parley refusal must travel as an MCP tool result; the bridges already do.
 *
 * @example
 * ```ts
 * import { toRefusalResult } from '@parley/mcp';
 *
 * const result = toRefusalResult({ id: 'c1', tool: 'rm', status: 'rejected', code: 'unknown_tool', reason: 'No tool "rm"' });
 * console.log(result.isError, result.content[0]); // true { type: 'text', text: 'No tool "rm"' }
 * ```
 */
export function toRefusalResult(failed: FailedToolCall): CallToolResult {
  return {
    content: [{ type: 'text', text: failed.reason }],
    structuredContent: { tool_feedback: { failed_calls: [toJson(failed)] } },
    isError: true,
  };
}

/** A result for a value an executor returned: a CallToolResult as is, anything else as JSON text. */
export function toCallToolResult(value: unknown): CallToolResult {
  if (isCallToolResult(value)) return value;
  const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const structured =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { structuredContent: value as Record<string, unknown> }
      : {};
  return { content: [{ type: 'text', text }], ...structured };
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content)
  );
}

/** A failed call as plain JSON (drops keys whose value is undefined). */
function toJson(failed: FailedToolCall): Record<string, unknown> {
  return JSON.parse(JSON.stringify(failed)) as Record<string, unknown>;
}
