import { isParleyError, toJsonSchema } from '@parley/core';
import type { AnyToolDefinition } from './define.js';
import { ToolsError } from './errors.js';

/**
 * A JSON Schema for tool arguments: always an object schema at the root.
 *
 * @example
 * ```ts
 * import type { ToolJsonSchema } from '@parley/tools';
 *
 * const schema: ToolJsonSchema = { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] };
 * ```
 */
export interface ToolJsonSchema {
  readonly type: 'object';
  readonly [keyword: string]: unknown;
}

/**
 * Options of the OpenAI exporters.
 *
 * @example
 * ```ts
 * import type { OpenAIExportOptions } from '@parley/tools';
 *
 * const options: OpenAIExportOptions = { strict: false };
 * ```
 */
export interface OpenAIExportOptions {
  /** Overrides every tool's `strict`; a strict tool's schema must close every object and require every property. */
  readonly strict?: boolean;
}

/**
 * One tool in the OpenAI Chat Completions `tools` list.
 *
 * @example
 * ```ts
 * import type { OpenAIChatTool } from '@parley/tools';
 *
 * const tool: OpenAIChatTool = {
 *   type: 'function',
 *   function: { name: 'ping', description: 'Pings', parameters: { type: 'object', properties: {} } },
 * };
 * ```
 */
export interface OpenAIChatTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: ToolJsonSchema;
    readonly strict?: boolean;
  };
}

/**
 * One tool in the OpenAI Responses API `tools` list (`strict` is always written, since that API
 * assumes `true` when it is absent).
 *
 * @example
 * ```ts
 * import type { OpenAIResponsesTool } from '@parley/tools';
 *
 * const tool: OpenAIResponsesTool = {
 *   type: 'function', name: 'ping', description: 'Pings', parameters: { type: 'object', properties: {} }, strict: false,
 * };
 * ```
 */
export interface OpenAIResponsesTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolJsonSchema;
  readonly strict: boolean;
}

/**
 * One tool in the Anthropic Messages API `tools` list.
 *
 * @example
 * ```ts
 * import type { AnthropicTool } from '@parley/tools';
 *
 * const tool: AnthropicTool = { name: 'ping', description: 'Pings', input_schema: { type: 'object', properties: {} } };
 * ```
 */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ToolJsonSchema;
}

/**
 * One tool of an MCP `tools/list` result.
 *
 * @example
 * ```ts
 * import type { McpTool } from '@parley/tools';
 *
 * const tool: McpTool = { name: 'ping', title: 'Ping', description: 'Pings', inputSchema: { type: 'object', properties: {} } };
 * ```
 */
export interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: ToolJsonSchema;
}

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
 * @throws ToolsError `schema_not_convertible` (see {@link toToolJsonSchema}); `strict_incompatible`
 * when a strict tool's schema leaves an object open or a property optional (`details.path`).
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
    const parameters = toToolJsonSchema(tool);
    const strict = strictOf(tool, parameters, options);
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
    const parameters = toToolJsonSchema(tool);
    return {
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters,
      strict: strictOf(tool, parameters, options) ?? false,
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

function strictOf(
  tool: AnyToolDefinition,
  schema: ToolJsonSchema,
  options: OpenAIExportOptions,
): boolean | undefined {
  const strict = options.strict ?? tool.strict;
  if (strict !== true) return strict;
  const path = openNode(schema, '');
  if (path !== undefined) {
    throw new ToolsError(
      'strict_incompatible',
      `The schema of "${tool.name}" cannot be strict: the object at "${path || '(root)'}" must set additionalProperties: false and require every property`,
      { details: { tool: tool.name, path } },
    );
  }
  return true;
}

/** Finds the first object schema that strict mode refuses: open, or with an optional property. */
function openNode(node: unknown, path: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = openNode(node[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const schema = node as Record<string, unknown>;
  const properties = schema['properties'];
  const isObject = schema['type'] === 'object' || (typeof properties === 'object' && properties !== null);
  if (isObject) {
    if (schema['additionalProperties'] !== false) return path;
    const required = Array.isArray(schema['required']) ? schema['required'] : [];
    const keys = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
    if (keys.some((key) => !required.includes(key))) return path;
  }
  for (const keyword of ['properties', '$defs', 'definitions']) {
    const children = schema[keyword];
    if (typeof children !== 'object' || children === null) continue;
    for (const [key, child] of Object.entries(children)) {
      const found = openNode(child, `${path === '' ? '' : `${path}.`}${keyword}.${key}`);
      if (found !== undefined) return found;
    }
  }
  for (const keyword of ['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    if (schema[keyword] === undefined) continue;
    const found = openNode(schema[keyword], `${path === '' ? '' : `${path}.`}${keyword}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
