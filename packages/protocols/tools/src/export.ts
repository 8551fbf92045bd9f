import { isParleyError, toJsonSchema } from '@parley/core';
import type { AnyToolDefinition } from './define.js';
import { ToolsError } from './errors.js';
import type {
  AnthropicTool,
  McpTool,
  OpenAIChatTool,
  OpenAIExportOptions,
  OpenAIResponsesTool,
  ToolJsonSchema,
} from './export-types.js';
import { strictCopy } from './internal/strict-schema.js';

/**
 * The JSON Schema of a tool's arguments: the tool's hand-written `jsonSchema`, or its args schema
 * converted by core's `toJsonSchema` (what the schema accepts), without the `$schema` keyword.
 *
 * Use it when a host builds a tool format Parley does not export; the exporters below use it.
 *
 * @throws ToolsError `schema_not_convertible` when the args schema cannot describe itself as JSON
 * Schema (give the tool a `jsonSchema`) or does not describe an object; `invalid_tool` for
 * something that is not a tool.
 * @example
 * ```ts
 * import { defineTool, toToolJsonSchema } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({ host: z.string() }), reasons: [], execute: () => 'pong' });
 * console.log(toToolJsonSchema(ping).required); // [ 'host' ]
 * ```
 */
export function toToolJsonSchema(tool: AnyToolDefinition): ToolJsonSchema {
  if (typeof tool !== 'object' || tool === null || tool.kind !== 'parley.tool') {
    throw new ToolsError('invalid_tool', 'Expected a tool made with defineTool');
  }
  let schema: Record<string, unknown>;
  if (tool.jsonSchema !== undefined) schema = structuredClone({ ...tool.jsonSchema });
  else {
    try {
      schema = toJsonSchema(tool.args, { io: 'input' });
    } catch (error) {
      if (!isParleyError(error, 'schema_not_convertible')) throw error;
      throw new ToolsError(
        'schema_not_convertible',
        `The args schema of "${tool.name}" cannot be expressed as JSON Schema; give the tool a hand-written jsonSchema`,
        { details: { tool: tool.name }, cause: error },
      );
    }
  }
  delete schema['$schema'];
  if (schema['type'] !== 'object') {
    throw new ToolsError(
      'schema_not_convertible',
      `The args schema of "${tool.name}" must describe an object, as every function-calling API requires`,
      { details: { tool: tool.name, type: String(schema['type']) } },
    );
  }
  return schema as ToolJsonSchema; // its type was checked just above
}

/**
 * Exports tools in the OpenAI Chat Completions shape:
 * `[{ type: 'function', function: { name, description, parameters, strict? } }]`.
 *
 * Use it for the `tools` parameter of `chat.completions.create`; parse the answer's
 * `message.tool_calls` back with {@link parseOpenAIToolCalls}.
 *
 * A strict tool's parameters are written the way strict mode takes them: a `oneOf` whose branches
 * exclude each other (a discriminated union) becomes the `anyOf` it equals.
 *
 * @throws ToolsError `schema_not_convertible` (see {@link toToolJsonSchema}); `strict_incompatible`
 * when a strict tool's schema leaves an object open or a property optional, or holds what strict
 * mode refuses (a tuple's `prefixItems`, an overlapping `oneOf`, `allOf`, `not`, `if`, …), with
 * `details.path` and `details.keyword`.
 * @example
 * ```ts
 * import { defineTool, toOpenAITools } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({ host: z.string() }).strict(), reasons: [], strict: true, execute: () => 'pong' });
 * const [tool] = toOpenAITools([ping]);
 * console.log(tool?.function.name, tool?.function.strict); // ping true
 * ```
 */
export function toOpenAITools(
  tools: readonly AnyToolDefinition[],
  options: OpenAIExportOptions = {},
): OpenAIChatTool[] {
  return listOf(tools).map((tool) => {
    const { strict, parameters } = strictOf(tool, toToolJsonSchema(tool), options);
    return {
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters,
        ...(strict === undefined ? {} : { strict }),
      },
    };
  });
}

/**
 * Exports tools in the OpenAI Responses API shape:
 * `[{ type: 'function', name, description, parameters, strict }]`.
 *
 * Use it for the `tools` parameter of `responses.create`; parse its `function_call` output items
 * with {@link parseOpenAIToolCalls}.
 *
 * @throws ToolsError `schema_not_convertible` or `strict_incompatible`, as {@link toOpenAITools}.
 * @example
 * ```ts
 * import { defineTool, toOpenAIResponsesTools } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({ host: z.string() }), reasons: [], execute: () => 'pong' });
 * console.log(toOpenAIResponsesTools([ping])[0]?.strict); // false
 * ```
 */
export function toOpenAIResponsesTools(
  tools: readonly AnyToolDefinition[],
  options: OpenAIExportOptions = {},
): OpenAIResponsesTool[] {
  return listOf(tools).map((tool) => {
    const { strict, parameters } = strictOf(tool, toToolJsonSchema(tool), options);
    return {
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters,
      strict: strict ?? false,
    };
  });
}

/**
 * Exports tools in the Anthropic Messages API shape: `[{ name, description, input_schema }]`.
 *
 * Use it for the `tools` parameter of `messages.create`; parse the answer's `tool_use` blocks with
 * {@link parseAnthropicToolUses}.
 *
 * @throws ToolsError `schema_not_convertible` (see {@link toToolJsonSchema}).
 * @example
 * ```ts
 * import { defineTool, toAnthropicTools } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({ host: z.string() }), reasons: [], execute: () => 'pong' });
 * console.log(toAnthropicTools([ping])[0]?.input_schema.type); // object
 * ```
 */
export function toAnthropicTools(tools: readonly AnyToolDefinition[]): AnthropicTool[] {
  return listOf(tools).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: toToolJsonSchema(tool),
  }));
}

/**
 * Exports tools as an MCP `tools/list` result's tools: `[{ name, title?, description, inputSchema }]`.
 *
 * Use it in an MCP server's `tools/list` handler; a `tools/call` request's `name` and `arguments`
 * become a proposal `{ id, tool: name, args: arguments }` for the gate.
 *
 * @throws ToolsError `schema_not_convertible` (see {@link toToolJsonSchema}).
 * @example
 * ```ts
 * import { defineTool, toMcpTools } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', title: 'Ping a host', description: 'Pings', args: z.object({ host: z.string() }), reasons: [], execute: () => 'pong' });
 * console.log(toMcpTools([ping])[0]?.title); // Ping a host
 * ```
 */
export function toMcpTools(tools: readonly AnyToolDefinition[]): McpTool[] {
  return listOf(tools).map((tool) => ({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: toToolJsonSchema(tool),
  }));
}

function listOf(tools: readonly AnyToolDefinition[]): readonly AnyToolDefinition[] {
  if (!Array.isArray(tools)) throw new ToolsError('invalid_argument', 'Expected a list of tools');
  return tools;
}

/** A tool's `strict` flag and the parameters to send with it (rewritten for strict mode). */
function strictOf(
  tool: AnyToolDefinition,
  schema: ToolJsonSchema,
  options: OpenAIExportOptions,
): { readonly strict: boolean | undefined; readonly parameters: ToolJsonSchema } {
  const strict = options.strict ?? tool.strict;
  if (strict !== true) return { strict, parameters: schema };
  const refuse = (path: string, keyword: string, why: string): never => {
    throw new ToolsError(
      'strict_incompatible',
      `The schema of "${tool.name}" cannot be strict: ${why} at "${path || '(root)'}"`,
      { details: { tool: tool.name, path, keyword } },
    );
  };
  // The copy of an object schema is an object schema.
  return { strict: true, parameters: strictCopy(schema, '', refuse) as ToolJsonSchema };
}
