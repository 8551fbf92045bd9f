import type { AnyToolDefinition } from './define.js';
import { checkToolShape } from './shape.js';
import { ToolsError } from './errors.js';

/**
 * What {@link checkToolRegistry} checks: the registered tools, the allowlist configuration, and
 * whether the host can ask for confirmation.
 *
 * @example
 * ```ts
 * import type { ToolRegistryInput } from '@parley/tools';
 *
 * const input: ToolRegistryInput = { tools: [], allowlist: [], confirmAvailable: false };
 * ```
 */
export interface ToolRegistryInput {
  readonly tools: readonly AnyToolDefinition[];
  readonly allowlist: readonly string[];
  /** Whether a confirmation gate or function is configured; tools that need one fail without. */
  readonly confirmAvailable: boolean;
}

/**
 * Checks a set of tools against the reference's extension rules, as {@link createToolGate} does at
 * start-up: each is a `defineTool` definition with an args schema and a rejection-reason
 * enumeration, names are unique, every tool is named in the allowlist and the allowlist names
 * nothing else, and tools that need confirmation have a way to ask.
 *
 * Use it in a test or at boot to fail fast when someone adds a tool without registering it.
 *
 * @throws ToolsError `invalid_tool`, `missing_args_schema`, `missing_reasons`, `duplicate_tool`,
 * `not_in_allowlist`, `unknown_allowlist_entry` or `confirm_unavailable`, naming the tool in
 * `details.tool`.
 * @example
 * ```ts
 * import { checkToolRegistry, defineTool } from '@parley/tools';
 * import { isParleyError } from '@parley/core';
 * import { z } from 'zod';
 *
 * const ping = defineTool({ name: 'ping', description: 'Pings', args: z.object({}), reasons: [], execute: () => 'pong' });
 * try {
 *   checkToolRegistry({ tools: [ping], allowlist: [], confirmAvailable: false });
 * } catch (err) {
 *   console.log(isParleyError(err, 'not_in_allowlist')); // true
 * }
 * ```
 */
export function checkToolRegistry(input: ToolRegistryInput): void {
  buildRegistry(input);
}

/** @internal Checks the registry and returns the tools by canonical name. */
export function buildRegistry(input: ToolRegistryInput): ReadonlyMap<string, AnyToolDefinition> {
  if (!Array.isArray(input.tools)) throw new ToolsError('invalid_argument', 'tools must be a list of tools');
  if (!Array.isArray(input.allowlist)) {
    throw new ToolsError('invalid_argument', 'allowlist must be a list of tool names');
  }
  const byName = new Map<string, AnyToolDefinition>();
  for (const tool of input.tools) {
    checkToolShape(tool, 'registry');
    if (tool.kind !== 'parley.tool' || typeof tool.needsConfirmation !== 'function') {
      throw new ToolsError('invalid_tool', `registry: the tool "${tool.name}" was not made with defineTool`, {
        details: { tool: tool.name },
      });
    }
    if (byName.has(tool.name)) {
      throw new ToolsError('duplicate_tool', `registry: two tools are named "${tool.name}"`, {
        details: { tool: tool.name },
      });
    }
    byName.set(tool.name, tool);
  }
  const allowed = new Set<string>();
  for (const name of input.allowlist) {
    if (typeof name !== 'string' || !byName.has(name)) {
      throw new ToolsError(
        'unknown_allowlist_entry',
        `registry: the allowlist names "${String(name)}", which is not a registered tool`,
        { details: { tool: String(name) } },
      );
    }
    allowed.add(name);
  }
  for (const tool of byName.values()) {
    if (!allowed.has(tool.name)) {
      throw new ToolsError(
        'not_in_allowlist',
        `registry: the tool "${tool.name}" is not named in the allowlist; register it there`,
        { details: { tool: tool.name } },
      );
    }
    if (tool.confirmation !== 'never' && !input.confirmAvailable) {
      throw new ToolsError(
        'confirm_unavailable',
        `registry: the tool "${tool.name}" needs confirmation, but no confirm gate or function is configured`,
        { details: { tool: tool.name } },
      );
    }
  }
  return byName;
}
