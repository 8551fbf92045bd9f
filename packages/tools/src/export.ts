import { canonicalJson, isParleyError, toJsonSchema } from '@parley/core';
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

type Refuse = (path: string, keyword: string, why: string) => never;

/**
 * Keywords OpenAI's strict mode does not take (its SDK throws on `prefixItems` and rewrites
 * `oneOf`): refused wherever they appear, but for a `oneOf` whose branches exclude each other.
 */
const STRICT_UNSUPPORTED: readonly string[] = [
  'prefixItems',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
];
/** Keywords holding a map of names to schemas. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', '$defs', 'definitions']);
/** Keywords holding a schema or a list of schemas. */
const SUBSCHEMAS: ReadonlySet<string> = new Set(['items', 'anyOf', 'oneOf', 'additionalProperties']);

/**
 * Copies a schema for strict mode: every object closed and every property required, a `oneOf`
 * whose branches exclude each other (each requires one property to hold a `const`/`enum` the
 * others' do not allow) written as the `anyOf` it equals, anything else strict mode refuses
 * reported with its path and keyword.
 */
function strictCopy(node: unknown, path: string, refuse: Refuse): unknown {
  if (Array.isArray(node)) return node.map((item, i) => strictCopy(item, `${path}[${i}]`, refuse));
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Record<string, unknown>;
  const keyword = STRICT_UNSUPPORTED.find((k) => schema[k] !== undefined);
  if (keyword !== undefined) refuse(path, keyword, `strict mode does not take ${keyword}`);
  checkClosed(schema, path, refuse);
  const out: Record<string, unknown> = {};
  const at = (key: string): string => `${path === '' ? '' : `${path}.`}${key}`;
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, strictCopy(child, at(`${key}.${name}`), refuse)]),
      );
    } else if (key === 'oneOf') {
      if (!exclusive(value) || schema['anyOf'] !== undefined) {
        refuse(path, 'oneOf', 'strict mode takes anyOf, and these oneOf branches may overlap');
      }
      out['anyOf'] = strictCopy(value, at('anyOf'), refuse);
    } else out[key] = SUBSCHEMAS.has(key) ? strictCopy(value, at(key), refuse) : value;
  }
  return out;
}

/** Refuses an object schema that is open or leaves a property optional. */
function checkClosed(schema: Record<string, unknown>, path: string, refuse: Refuse): void {
  const properties = schema['properties'];
  const isObject = schema['type'] === 'object' || (typeof properties === 'object' && properties !== null);
  if (!isObject) return;
  const why = 'the object must set additionalProperties: false and require every property';
  if (schema['additionalProperties'] !== false) refuse(path, 'additionalProperties', why);
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const keys = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  if (keys.some((key) => !required.includes(key))) refuse(path, 'required', why);
}

/**
 * Whether at most one branch can match any value: some property is required by every branch and
 * fixed by each to `const`/`enum` values no other branch allows (a discriminated union).
 */
function exclusive(branches: unknown): boolean {
  if (!Array.isArray(branches)) return false;
  const tags = branches.map(tagsOf);
  const candidates = tags[0] === undefined ? [] : [...tags[0].keys()];
  return candidates.some((name) => {
    const seen = new Set<string>();
    for (const branch of tags) {
      const values = branch?.get(name);
      if (values === undefined) return false;
      for (const value of values) {
        if (seen.has(value)) return false;
      }
      for (const value of values) seen.add(value);
    }
    return true;
  });
}

/** The required properties a branch fixes to `const`/`enum` values, each value as canonical JSON. */
function tagsOf(branch: unknown): Map<string, readonly string[]> | undefined {
  if (typeof branch !== 'object' || branch === null) return undefined;
  const { properties, required } = branch as Record<string, unknown>;
  if (typeof properties !== 'object' || properties === null || !Array.isArray(required)) return undefined;
  const tags = new Map<string, readonly string[]>();
  for (const [name, property] of Object.entries(properties)) {
    if (!required.includes(name) || typeof property !== 'object' || property === null) continue;
    const { const: fixed, enum: values } = property as Record<string, unknown>;
    if (fixed !== undefined) tags.set(name, [canonicalJson(fixed)]);
    else if (Array.isArray(values))
      tags.set(
        name,
        values.map((v) => canonicalJson(v)),
      );
  }
  return tags;
}
