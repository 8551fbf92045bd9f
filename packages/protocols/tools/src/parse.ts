import { type JsonLimits, safeParseJson } from '@parley/core';
import { ToolsError } from './errors.js';
import type { FailedToolCall, ToolCallProposal } from './types.js';

/**
 * Proposals parsed from a model API's tool calls, and the calls that could not be read (already in
 * `failed_calls` form, to append to the gate's feedback).
 *
 * @example
 * ```ts
 * import type { ParsedToolCalls } from '@parley/tools';
 *
 * const parsed: ParsedToolCalls = { calls: [{ id: 'call_1', tool: 'ping', args: {} }], failed_calls: [] };
 * ```
 */
export interface ParsedToolCalls {
  readonly calls: readonly ToolCallProposal[];
  readonly failed_calls: readonly FailedToolCall[];
}

/**
 * Reads OpenAI tool calls into Parley proposals `{ id, tool, args }`: Chat Completions
 * `message.tool_calls` entries (`{ id, type: 'function', function: { name, arguments } }`) and
 * Responses API output items (`{ type: 'function_call', call_id, name, arguments }`; other item
 * types such as `message` or `reasoning` are skipped). `arguments` is JSON text and is parsed with
 * core's safe JSON parser (size, depth and `__proto__` limits); an empty string means `{}`.
 *
 * Use it on the model's answer, then hand `calls` to the gate and append `failed_calls` to its
 * feedback. It never throws for what the model produced.
 *
 * @throws ToolsError `invalid_argument` when `items` is not a list.
 * @example
 * ```ts
 * import { parseOpenAIToolCalls } from '@parley/tools';
 *
 * const parsed = parseOpenAIToolCalls([
 *   { id: 'call_1', type: 'function', function: { name: 'move', arguments: '{"actor_id":"pc_1"}' } },
 *   { id: 'call_2', type: 'function', function: { name: 'move', arguments: '{"actor_id":' } },
 * ]);
 * console.log(parsed.calls[0]?.args, parsed.failed_calls[0]?.code); // { actor_id: 'pc_1' } invalid_args
 * ```
 */
export function parseOpenAIToolCalls(items: readonly unknown[], limits?: JsonLimits): ParsedToolCalls {
  const calls: ToolCallProposal[] = [];
  const failed: FailedToolCall[] = [];
  listOf(items).forEach((item, index) => {
    const value = recordOf(item);
    const type = value['type'];
    let id: unknown = typeof value['call_id'] === 'string' ? value['call_id'] : value['id'];
    let name: unknown = value['name'] ?? recordOf(value['custom'])['name'];
    let text: unknown;
    if (type === 'function_call') {
      id = value['call_id'];
      name = value['name'];
      text = value['arguments'];
    } else if (type === 'function') {
      const fn = recordOf(value['function']);
      id = value['id'];
      name = fn['name'];
      text = fn['arguments'];
    } else if (typeof type === 'string' && !type.startsWith('custom')) {
      return; // a Responses item that is not a tool call: a message, reasoning, a hosted tool's call
    }
    const problem = shapeProblem(id, name, type);
    if (problem !== undefined) {
      failed.push(malformed(id, name, index, problem));
      return;
    }
    const args = argsFromText(text, limits);
    if (args.ok) calls.push({ id: id as string, tool: name as string, args: args.value });
    else failed.push(badArgs(id as string, name as string, args.message)); // both checked by shapeProblem
  });
  return { calls, failed_calls: failed };
}

/**
 * Reads Anthropic Messages `tool_use` content blocks (`{ type: 'tool_use', id, name, input }`) into
 * Parley proposals `{ id, tool, args }`; text, thinking and server-tool blocks are skipped.
 *
 * Use it on `message.content` of the model's answer. It never throws for what the model produced.
 *
 * @throws ToolsError `invalid_argument` when `content` is not a list.
 * @example
 * ```ts
 * import { parseAnthropicToolUses } from '@parley/tools';
 *
 * const parsed = parseAnthropicToolUses([
 *   { type: 'text', text: 'Moving.' },
 *   { type: 'tool_use', id: 'toolu_1', name: 'move', input: { actor_id: 'pc_1' } },
 * ]);
 * console.log(parsed.calls); // [ { id: 'toolu_1', tool: 'move', args: { actor_id: 'pc_1' } } ]
 * ```
 */
export function parseAnthropicToolUses(content: readonly unknown[]): ParsedToolCalls {
  const calls: ToolCallProposal[] = [];
  const failed: FailedToolCall[] = [];
  listOf(content).forEach((block, index) => {
    const value = recordOf(block);
    if (value['type'] !== 'tool_use') {
      if (typeof value['type'] === 'string') return; // text, thinking, server_tool_use…
      failed.push(malformed(value['id'], value['name'], index, 'the block has no "type"'));
      return;
    }
    const problem = shapeProblem(value['id'], value['name'], 'tool_use');
    if (problem !== undefined) {
      failed.push(malformed(value['id'], value['name'], index, problem));
      return;
    }
    const id = value['id'] as string; // checked by shapeProblem
    const name = value['name'] as string;
    const input = value['input'];
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      failed.push(badArgs(id, name, 'the input is not an object'));
      return;
    }
    calls.push({ id, tool: name, args: input });
  });
  return { calls, failed_calls: failed };
}

function listOf(items: readonly unknown[]): readonly unknown[] {
  if (!Array.isArray(items)) throw new ToolsError('invalid_argument', 'Expected a list of tool calls');
  return items;
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function shapeProblem(id: unknown, name: unknown, type: unknown): string | undefined {
  if (typeof type === 'string' && type.startsWith('custom')) return `"${type}" tool calls are not supported`;
  if (typeof type !== 'string') return 'the call has no "type"';
  if (typeof id !== 'string' || id === '') return 'the call has no id';
  if (typeof name !== 'string' || name === '') return 'the call has no tool name';
  return undefined;
}

function argsFromText(
  text: unknown,
  limits: JsonLimits | undefined,
): { ok: true; value: Readonly<Record<string, unknown>> } | { ok: false; message: string } {
  if (typeof text !== 'string') return { ok: false, message: 'the arguments are not a JSON string' };
  if (text.trim() === '') return { ok: true, value: {} };
  const parsed = safeParseJson(text, limits);
  if (!parsed.ok)
    return {
      ok: false,
      message: `the arguments are not acceptable JSON (${parsed.code}: ${parsed.message})`,
    };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'the arguments are not a JSON object' };
  }
  return { ok: true, value: value as Readonly<Record<string, unknown>> }; // a JSON object, checked above
}

function malformed(id: unknown, name: unknown, index: number, problem: string): FailedToolCall {
  return {
    id: typeof id === 'string' && id !== '' ? id : `#${index}`,
    tool: typeof name === 'string' ? name : '',
    status: 'rejected',
    code: 'invalid_call',
    reason: `The call is malformed: ${problem}`,
  };
}

function badArgs(id: string, tool: string, problem: string): FailedToolCall {
  const reason = `The arguments are invalid: ${problem}`;
  return {
    id,
    tool,
    status: 'rejected',
    code: 'invalid_args',
    reason,
    issues: [{ path: [], pathText: '', message: problem }],
  };
}
