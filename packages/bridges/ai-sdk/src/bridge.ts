import { type ConfirmGate, createConfirmGate, type ResumeHandler } from '@parley/confirm';
import { createMemoryStore, systemClock } from '@parley/core';
import { type AnyToolDefinition, createToolGate, toLoopGate } from '@parley/tools';
import { createApprover, resumeHandler } from './approve.js';
import { createEffectLinks } from './effect-links.js';
import { createEffectRecorder } from './effects.js';
import { type GateContext, gateConfirm, gateDefinitions, unwrapPolicy } from './internal/gate.js';
import { checkToolSet } from './internal/tool-set.js';
import { wrapTool } from './internal/wrap.js';
import { createApprovalRecords } from './records.js';
import type { AiSdkBridge, AiSdkBridgeOptions } from './types.js';

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
  const set = checkToolSet(options);
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore({ clock });
  const prefix = options.keyPrefix ?? 'parley:ai-sdk:';
  const ttlMs = options.recordTtlMs ?? DEFAULT_RECORD_TTL_MS;
  const records = createApprovalRecords(store, prefix, ttlMs, clock);

  const resume: Record<string, ResumeHandler> = {};
  const onResume = options.onResume;
  if (onResume !== undefined) {
    for (const name of set.names.filter(set.needsConfirm))
      resume[name] = resumeHandler({ records, onResume });
  }
  const confirmGate: ConfirmGate = createConfirmGate({ ...options.confirm, store, clock, resume });
  const { authorized, recordEffect } = createEffectRecorder({
    confirmGate,
    ledger: options.confirm.ledger,
    links: createEffectLinks(store, prefix, ttlMs, clock),
    clock,
  });

  const definitions = gateDefinitions<TContext>(set, recordEffect);
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  const allowlist = set.allowlist;
  const gate = createToolGate<readonly AnyToolDefinition[], GateContext<TContext>>({
    tools: definitions,
    allowlist: allowlist as never, // the names of `definitions`, checked by the registry
    policies: (options.policies ?? []).flatMap((policy) => unwrapPolicy(policy, allowlist)),
    confirm: gateConfirm<TContext>({ set, records, confirmGate, authorized }),
    clock,
    store,
    storePrefix: `${prefix}tools:`,
    ...(options.messages === undefined ? {} : { messages: options.messages }),
  });

  return {
    tools: (run) => Object.fromEntries(allowlist.map((name) => [name, wrapTool(set, gate, name, run)])),
    definitions: () =>
      Object.fromEntries(allowlist.map((name) => [name, wrapTool(set, gate, name, undefined)])),
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
      schemaOf: set.schemaOf,
      summarize: (name, args) => (byName.get(name) as AnyToolDefinition).summarize(args as never), // a tool of the set
    }),
    confirmGate,
    on: (event, listener) => gate.on(event, listener),
    ready: confirmGate.ready,
    close: () => confirmGate.close(),
  };
}
