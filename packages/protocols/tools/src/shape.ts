// The rules a tool definition (or its init) must follow to be registered.
import { isStandardSchema } from '@parley/core';
import { ToolsError } from './errors.js';

/** @internal The names every function-calling API accepts (OpenAI, Anthropic, MCP). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** @internal Checks a definition (or its init) against the extension rules; `where` names the caller. */
export function checkToolShape(tool: unknown, where: string): void {
  if (typeof tool !== 'object' || tool === null) {
    throw new ToolsError('invalid_tool', `${where}: a tool must be an object made with defineTool`);
  }
  const value = tool as Record<string, unknown>;
  const name = value['name'];
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolsError('invalid_tool', `${where}: the tool name must match ${TOOL_NAME_PATTERN}`, {
      details: { name: String(name) },
    });
  }
  const fail = (code: 'invalid_tool' | 'missing_args_schema' | 'missing_reasons', problem: string): never => {
    throw new ToolsError(code, `${where}: the tool "${name}" ${problem}`, { details: { tool: name } });
  };
  if (typeof value['description'] !== 'string' || value['description'].trim() === '') {
    fail('invalid_tool', 'needs a description');
  }
  if (value['title'] !== undefined && typeof value['title'] !== 'string')
    fail('invalid_tool', 'has a bad title');
  if (typeof value['execute'] !== 'function') fail('invalid_tool', 'needs an execute function');
  const confirm = value['confirm'] ?? false;
  if (typeof confirm !== 'boolean' && typeof confirm !== 'function') {
    fail('invalid_tool', 'has a "confirm" that is neither a boolean nor a function');
  }
  const jsonSchema = value['jsonSchema'];
  if (jsonSchema !== undefined && (typeof jsonSchema !== 'object' || jsonSchema === null)) {
    fail('invalid_tool', 'has a "jsonSchema" that is not an object');
  }
  if (!isStandardSchema(value['args'])) fail('missing_args_schema', 'has no args schema (a Standard Schema)');
  const reasons = value['reasons'];
  if (!Array.isArray(reasons)) fail('missing_reasons', 'has no enumeration of rejection reasons');
  const seen = new Set<string>();
  for (const reason of reasons as unknown[]) {
    if (typeof reason !== 'string' || reason === '' || seen.has(reason)) {
      fail('missing_reasons', `has a bad or repeated rejection reason: ${JSON.stringify(reason)}`);
    }
    seen.add(reason as string);
  }
}
