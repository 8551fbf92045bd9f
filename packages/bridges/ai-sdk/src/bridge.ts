import { type ConfirmGate, createConfirmGate, type ResumeHandler } from '@parley/confirm';
import {
  createMemoryStore,
  type JsonValue,
  type StandardSchemaV1,
  systemClock,
  validateAsync,
} from '@parley/core';
import {
  type AnyToolDefinition,
  createToolGate,
  defineTool,
  type ToolConfirmFn,
  type ToolPolicy,
  toLoopGate,
} from '@parley/tools';
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { createApprover, resumeHandler } from './approve.js';
import { createEffectRecorder } from './effects.js';
import { AiSdkBridgeError } from './errors.js';
import { createApprovalRecords } from './records.js';
import { toLaxSchema, toStandardSchema } from './schema.js';
import type { AiSdkBridge, AiSdkBridgeOptions, BridgeRun } from './types.js';

/** The context the bridge's tool gate runs with: the host's, and the SDK's options of the call. */
interface GateContext<TContext> {
  readonly user: TContext;
  readonly sdk: ToolExecutionOptions | undefined;
}

const DEFAULT_RECORD_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Bridges a Vercel AI SDK tool set to Parley: every call goes through a Parley tool gate (allowlist,
 * state policies, argument schema) whose refusals come back to the model as the tool's result; tools
 * that need approval stop `generateText` with a `tool-approval-request`, which `approve` asks the
 * person about in chat through a Parley confirm gate; the approved call runs only if the recorded
 * decision covers its exact arguments (the action digest), once, before the deadline.
 *
 * Use one bridge per agent. Pass `bridge.tools({ turn, context })` to `generateText`; when the
 * result has approval requests, `await bridge.approve(result, { sessionKey, requester })` and call
 * `generateText` again with `answer.messages` appended.
 *
 * @throws AiSdkBridgeError `invalid_argument` for a tool without `execute` or a name in
 * `requireApproval` / `allowlist` that is not a tool; ToolsError for a tool name other APIs refuse.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createAiSdkBridge } from '@parley/ai-sdk';
 * import { tool } from 'ai';
 * import { z } from 'zod';
 *
 * const bridge = createAiSdkBridge({
 *   tools: {
 *     dropTable: tool({
 *       description: 'Drops a table',
 *       inputSchema: z.object({ table: z.string() }),
 *       needsApproval: true,
 *       execute: async ({ table }) => `dropped ${table}`,
 *     }),
 *   },
 *   confirm: { bus: createMessageBus() },
 * });
 * console.log(Object.keys(bridge.tools({ turn: 1, context: null }))); // [ 'dropTable' ]
 * await bridge.close();
 * ```
 */
export function createAiSdkBridge<TContext = unknown>(
  options: AiSdkBridgeOptions<TContext>,
): AiSdkBridge<TContext> {
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
  const needsConfirm = (name: string): boolean => {
    const own = tools[name]?.needsApproval;
    return required.has(name) || own === true || typeof own === 'function';
  };
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const prefix = options.keyPrefix ?? 'parley:ai-sdk:';
  const records = createApprovalRecords(store, prefix, options.recordTtlMs ?? DEFAULT_RECORD_TTL_MS, clock);
  const schemas = new Map(names.map((name) => [name, toStandardSchema(toolOf(tools, name).inputSchema)]));
  const schemaOf = (name: string): StandardSchemaV1 => schemas.get(name) as StandardSchemaV1; // every name has one

  /** Whether this call of a tool that needs confirmation needs a person, as its `needsApproval` says. */
  const approvalNeeded = async (name: string, input: unknown, sdk: ToolExecutionOptions | undefined) => {
    const own = toolOf(tools, name).needsApproval; // asked only for tools that need confirmation
    if (required.has(name) || typeof own !== 'function') return true;
    return (await own(input, { toolCallId: sdk?.toolCallId ?? '', messages: sdk?.messages ?? [] })) === true;
  };

  const resume: Record<string, ResumeHandler> = {};
  const onResume = options.onResume;
  if (onResume !== undefined) {
    for (const name of names.filter(needsConfirm)) resume[name] = resumeHandler({ records, onResume });
  }
  const confirmGate: ConfirmGate = createConfirmGate({ ...options.confirm, store, clock, resume });

  const { authorized, recordEffect } = createEffectRecorder(confirmGate, options.confirm.ledger);

  const confirm: ToolConfirmFn<GateContext<TContext>> = async (request) => {
    const action = { name: request.call.tool, args: request.args as JsonValue }; // validated JSON arguments
    const decisionId = (await records.read(request.call.id))?.decisionId;
    if (decisionId !== undefined) return authorized(request.call.id, decisionId, action);
    if (!(await approvalNeeded(request.call.tool, request.args, request.context.sdk))) return 'confirmed';
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
    return authorized(request.call.id, decision, action);
  };

  const definitions = allowlist.map((name) =>
    defineTool({
      name,
      description: toolOf(tools, name).description ?? name,
      args: schemaOf(name),
      reasons: [],
      confirm: needsConfirm(name),
      execute: async (
        args: unknown,
        context: { context: GateContext<TContext>; call: { id: string }; signal: AbortSignal | undefined },
      ) => {
        let result: unknown;
        try {
          result = await runOriginal(
            toolOf(tools, name),
            args,
            context.context.sdk ?? {
              toolCallId: context.call.id,
              messages: [],
              ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
            },
          );
        } catch (error) {
          // it threw: whether it acted before throwing is not known
          await recordEffect(
            context.call.id,
            'unknown',
            error instanceof Error ? error.message : String(error),
          );
          throw error;
        }
        await recordEffect(context.call.id, 'succeeded');
        return result;
      },
    }),
  ) as unknown as readonly AnyToolDefinition[]; // each is a tool definition over GateContext
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  const gate = createToolGate<readonly AnyToolDefinition[], GateContext<TContext>>({
    tools: definitions,
    allowlist: allowlist as never, // the names of `definitions`, checked by the registry
    policies: (options.policies ?? []).flatMap((policy) => unwrapPolicy(policy, allowlist)),
    confirm,
    clock,
    store,
    storePrefix: `${prefix}tools:`,
    ...(options.messages === undefined ? {} : { messages: options.messages }),
  });

  const wrap = (name: string, run: BridgeRun<TContext> | undefined): Tool => {
    const original = toolOf(tools, name);
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
        if (!needsConfirm(name)) return false;
        if (!(await validateAsync(schemaOf(name), input)).ok) return false; // refused as feedback instead
        return approvalNeeded(name, input, sdk);
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
  };

  return {
    tools: (run) => Object.fromEntries(allowlist.map((name) => [name, wrap(name, run)])),
    definitions: () => Object.fromEntries(allowlist.map((name) => [name, wrap(name, undefined)])),
    loopGate: (select) =>
      toLoopGate(gate, (context) => {
        const run = select(context);
        return {
          turn: run.turn,
          context: { user: run.context, sdk: undefined },
          sessionKey: run.sessionKey,
          requester: run.requester,
          signal: run.signal,
        };
      }),
    approve: createApprover({
      records,
      clock,
      confirmGate,
      schemaOf,
      summarize: (name, args) => (byName.get(name) as AnyToolDefinition).summarize(args as never), // a tool of the set
    }),
    confirmGate,
    ready: confirmGate.ready,
    close: () => confirmGate.close(),
  };
}

function toolOf(tools: ToolSet, name: string): Tool {
  return tools[name] as Tool; // names come from Object.keys(tools)
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

function unwrapPolicy<TContext>(
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
