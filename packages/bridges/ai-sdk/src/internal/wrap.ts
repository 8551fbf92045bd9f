import { validateAsync } from '@parley/core';
import type { ToolGate } from '@parley/tools';
import type { Tool, ToolExecutionOptions } from 'ai';
import { toLaxSchema } from '../schema.js';
import type { BridgeRun } from '../types.js';
import type { GateContext } from './gate.js';
import type { CheckedToolSet } from './tool-set.js';

/**
 * @internal The AI SDK tool handed to `generateText` for one tool of the set: without a run, only its
 * description and schema; with one, its approval check and an `execute` through the Parley tool gate.
 */
export function wrapTool<TContext>(
  set: CheckedToolSet,
  gate: ToolGate<string, GateContext<TContext>>,
  name: string,
  run: BridgeRun<TContext> | undefined,
): Tool {
  const original = set.toolOf(name);
  const wrapped: Tool = {
    ...(original.description === undefined ? {} : { description: original.description }),
    ...(original.title === undefined ? {} : { title: original.title }),
    inputSchema: toLaxSchema(original.inputSchema),
  };
  if (run === undefined) return wrapped;
  return {
    ...wrapped,
    needsApproval: async (
      input: unknown,
      sdk: { toolCallId: string; messages: ToolExecutionOptions['messages'] },
    ) => {
      if (!set.needsConfirm(name)) return false;
      if (!(await validateAsync(set.schemaOf(name), input)).ok) return false; // refused as feedback instead
      return set.approvalNeeded(name, input, sdk);
    },
    execute: async (input: unknown, sdk: ToolExecutionOptions) => {
      const result = await gate.process([{ id: sdk.toolCallId, tool: name, args: input }], {
        turn: run.turn,
        context: { user: run.context, sdk },
        sessionKey: run.sessionKey,
        requester: run.requester,
        signal: sdk.abortSignal ?? run.signal,
      });
      const executed = result.executed[0];
      return executed === undefined ? { tool_feedback: result.feedback } : executed.result;
    },
  };
}
