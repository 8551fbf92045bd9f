// The shapes tool definitions are exported in, one per model API.

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
