import type { ConfirmGate } from '@parley/confirm';
import type { JsonValue } from '@parley/core';
import { type AnyToolDefinition, defineTool, type ToolConfirmFn, type ToolPolicy } from '@parley/tools';
import type { Tool, ToolExecutionOptions } from 'ai';
import type { EffectRecorder } from '../effects.js';
import type { ApprovalRecords } from '../records.js';
import type { CheckedToolSet } from './tool-set.js';

/** @internal The context the bridge's tool gate runs with: the host's, and the SDK's options of the call. */
export interface GateContext<TContext> {
  readonly user: TContext;
  readonly sdk: ToolExecutionOptions | undefined;
}

/**
 * @internal The tool gate's confirm step: a call already approved in chat is authorized by its
 * recorded decision; otherwise a call whose `needsApproval` says so asks the person through the
 * confirm gate.
 */
export function gateConfirm<TContext>(deps: {
  readonly set: CheckedToolSet;
  readonly records: ApprovalRecords;
  readonly confirmGate: ConfirmGate;
  readonly authorized: EffectRecorder['authorized'];
}): ToolConfirmFn<GateContext<TContext>> {
  const { set, records, confirmGate, authorized } = deps;
  return async (request) => {
    const action = { name: request.call.tool, args: request.args as JsonValue }; // validated JSON arguments
    const record = await records.read(request.call.id);
    if (record?.decisionId !== undefined)
      return authorized(request.call.id, record.decisionId, record.sessionKey, action); // asked in that chat
    if (!(await set.approvalNeeded(request.call.tool, request.args, request.context.sdk))) return 'confirmed';
    if (request.sessionKey === undefined || request.requester === undefined) return 'declined';
    const decision = await confirmGate.request({
      sessionKey: request.sessionKey,
      requester: request.requester,
      action,
      summary: request.summary,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (decision.outcome === 'timed_out') return 'timed_out';
    if (decision.outcome === 'aborted' && decision.reason === 'prompt_failed') return 'failed'; // never asked
    if (decision.outcome !== 'confirmed') return 'declined';
    return authorized(request.call.id, decision.id, decision.sessionKey, action);
  };
}

/**
 * @internal The Parley tool definitions of the allowlisted tools: each runs the tool's own `execute`
 * and records its effect (`succeeded`, or `unknown` when it threw).
 */
export function gateDefinitions<TContext>(
  set: CheckedToolSet,
  recordEffect: EffectRecorder['recordEffect'],
): readonly AnyToolDefinition[] {
  return set.allowlist.map((name) =>
    defineTool({
      name,
      description: set.toolOf(name).description ?? name,
      args: set.schemaOf(name),
      reasons: [],
      confirm: set.needsConfirm(name),
      execute: async (
        args: unknown,
        context: { context: GateContext<TContext>; call: { id: string }; signal: AbortSignal | undefined },
      ) => {
        // only a tool that needs approval can have been authorized: others have no effect to record
        const record = set.needsConfirm(name) ? recordEffect : undefined;
        const action = { name, args: args as JsonValue }; // the validated (confirmed: canonical) arguments
        let result: unknown;
        try {
          result = await runOriginal(
            set.toolOf(name),
            args,
            context.context.sdk ?? {
              toolCallId: context.call.id,
              messages: [],
              ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
            },
          );
        } catch (error) {
          // it threw: whether it acted before throwing is not known
          const detail = error instanceof Error ? error.message : String(error);
          await record?.(context.call.id, action, 'unknown', detail);
          throw error;
        }
        await record?.(context.call.id, action, 'succeeded');
        return result;
      },
    }),
  ) as unknown as readonly AnyToolDefinition[]; // each is a tool definition over GateContext
}

/** @internal A host policy over the gate's context; it sees the host's context, and only exposed tools. */
export function unwrapPolicy<TContext>(
  policy: ToolPolicy<TContext>,
  allowlist: readonly string[],
): ToolPolicy<GateContext<TContext>>[] {
  const tools = policy.tools?.filter((name) => allowlist.includes(name)); // others are not exposed
  if (tools !== undefined && tools.length === 0) return [];
  return [
    {
      name: policy.name,
      ...(tools === undefined ? {} : { tools }),
      check: (input) => policy.check({ ...input, context: input.context.user }),
    },
  ];
}

/** Runs the tool's own `execute`; a streaming tool's last value is its output, as in the SDK. */
async function runOriginal(tool: Tool, args: unknown, sdk: ToolExecutionOptions): Promise<unknown> {
  const execute = tool.execute as (input: unknown, options: ToolExecutionOptions) => unknown;
  const output = await execute(args, sdk);
  if (typeof output !== 'object' || output === null || !(Symbol.asyncIterator in output)) return output;
  let last: unknown;
  for await (const value of output as AsyncIterable<unknown>) last = value;
  return last;
}
