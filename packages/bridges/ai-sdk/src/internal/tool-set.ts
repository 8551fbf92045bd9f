import type { StandardSchemaV1 } from '@parley/core';
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { AiSdkBridgeError } from '../errors.js';
import { toStandardSchema } from '../schema.js';
import type { AiSdkBridgeOptions } from '../types.js';

/** @internal The bridge's checked tool set: its names, what it exposes and which calls need a person. */
export interface CheckedToolSet {
  readonly tools: ToolSet;
  readonly names: readonly string[];
  readonly allowlist: readonly string[];
  /** The tool of the set by that name. */
  toolOf(name: string): Tool;
  /** The Standard Schema of the tool's input. */
  schemaOf(name: string): StandardSchemaV1;
  /** Whether the tool needs confirmation (in `requireApproval`, or its own `needsApproval` set). */
  needsConfirm(name: string): boolean;
  /** Whether this call of a tool that needs confirmation needs a person, as its `needsApproval` says. */
  approvalNeeded(name: string, input: unknown, sdk: ToolExecutionOptions | undefined): Promise<boolean>;
}

/**
 * @internal Checks the bridge's tool set and its `allowlist` / `requireApproval` names.
 *
 * @throws AiSdkBridgeError `invalid_argument` for an empty set, a tool without `execute` or a name
 * that is not a tool of the set.
 */
export function checkToolSet<TContext>(options: AiSdkBridgeOptions<TContext>): CheckedToolSet {
  const tools = options.tools;
  if (typeof tools !== 'object' || tools === null || Object.keys(tools).length === 0) {
    throw new AiSdkBridgeError('invalid_argument', 'tools must be a non-empty AI SDK tool set');
  }
  const names = Object.keys(tools);
  for (const name of names) {
    if (typeof tools[name]?.execute !== 'function') {
      throw new AiSdkBridgeError('invalid_argument', `The tool "${name}" has no execute function`, {
        details: { tool: name },
      });
    }
  }
  const allowlist = checkNames(options.allowlist ?? names, names, 'allowlist');
  const required = new Set(checkNames(options.requireApproval ?? [], names, 'requireApproval'));
  const toolOf = (name: string): Tool => tools[name] as Tool; // names come from Object.keys(tools)
  const schemas = new Map(names.map((name) => [name, toStandardSchema(toolOf(name).inputSchema)]));
  return {
    tools,
    names,
    allowlist,
    toolOf,
    schemaOf: (name) => schemas.get(name) as StandardSchemaV1, // every name has one
    needsConfirm: (name) => {
      const own = tools[name]?.needsApproval;
      return required.has(name) || own === true || typeof own === 'function';
    },
    approvalNeeded: async (name, input, sdk) => {
      const own = toolOf(name).needsApproval; // asked only for tools that need confirmation
      if (required.has(name) || typeof own !== 'function') return true;
      return (
        (await own(input, { toolCallId: sdk?.toolCallId ?? '', messages: sdk?.messages ?? [] })) === true
      );
    },
  };
}

function checkNames(list: readonly string[], names: readonly string[], option: string): readonly string[] {
  if (!Array.isArray(list))
    throw new AiSdkBridgeError('invalid_argument', `${option} must be a list of tool names`);
  for (const name of list) {
    if (!names.includes(name)) {
      throw new AiSdkBridgeError(
        'invalid_argument',
        `${option} names "${String(name)}", which is not a tool of the set`,
        {
          details: { tool: String(name) },
        },
      );
    }
  }
  return [...new Set(list)];
}
