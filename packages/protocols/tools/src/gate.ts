import { createEmitter, systemClock } from '@parley/core';
import type { AnyToolDefinition, ToolNameOf } from './define.js';
import { ToolsError } from './errors.js';
import type { CreatedToolGate, ToolGate, ToolGateOptions } from './gate-types.js';
import { type BatchProcessor, processBatch } from './internal/batch.js';
import { createCallHandler } from './internal/calls.js';
import { createDisabledTools } from './internal/disabled.js';
import { createCallMemory } from './internal/memory.js';
import { checkGateOptions, checkPolicies, storeOptions } from './internal/options.js';
import type { Runtime } from './internal/runtime.js';
import { createStoredAnswers } from './internal/stored.js';
import { buildRegistry } from './registry.js';
import { readSnapshot, type ToolGateSnapshot } from './snapshot.js';
import type { ToolGateEvents } from './types.js';

/**
 * Creates a tool gate from the registered tools and the allowlist configuration: it judges each
 * proposed call (canonical name, disabled, args schema with an optional repair, state-dependent
 * policies, confirmation), runs what passes, and answers the rest as `tool_feedback`.
 *
 * Use one gate per agent, and call `process` with the calls of each model output, the turn and
 * the host's context (machine state, settings snapshot). Nothing the model proposes throws: an
 * executor that throws becomes `executor_error`. A call is its id and its content (the tool and
 * its arguments by `canonicalJson`): an id runs at most once per turn, also across retries and
 * concurrent batches; the same id with the same content returns the recorded outcome, and with
 * other content is refused `call_id_reused` (the model may send it again under a new id). What the
 * gate remembers is capped by `limits`, and past a cap it refuses rather than forgets. The registry
 * is checked at once against the reference's extension rules.
 *
 * @throws ToolsError `invalid_tool`, `missing_args_schema`, `missing_reasons`, `duplicate_tool`,
 * `not_in_allowlist`, `unknown_allowlist_entry` or `confirm_unavailable` for a registry that breaks
 * the rules; `invalid_argument` for a bad policy, `keepTurns`, `limits`, `repeatedContent` or
 * option; `invalid_snapshot` for a bad `snapshot` option.
 * @example
 * ```ts
 * import { createToolGate, defineTool } from '@parley/tools';
 * import { z } from 'zod';
 *
 * const positions = new Map([['pc_1', 'hall']]);
 * const move = defineTool({
 *   name: 'move',
 *   description: 'Moves an actor to an adjacent area',
 *   args: z.object({ actor_id: z.string(), from_area_id: z.string(), to_area_id: z.string(), path_id: z.string().optional() }),
 *   reasons: ['area_locked', 'not_there'],
 *   execute: (args, { reject }) => {
 *     if (positions.get(args.actor_id) !== args.from_area_id) return reject('not_there');
 *     positions.set(args.actor_id, args.to_area_id);
 *     return { area: args.to_area_id };
 *   },
 * });
 * const gate = createToolGate({
 *   tools: [move],
 *   allowlist: ['move'],
 *   policies: [{
 *     name: 'movement_lock', tools: ['move'],
 *     check: ({ context }: { context: { state: string } }) =>
 *       context.state === 'combat' ? { message: '区域移动锁未解除', toolReason: 'area_locked' } : undefined,
 *   }],
 * });
 * const result = await gate.process(
 *   [
 *     { id: 'call_001', tool: 'move', args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' } },
 *     { id: 'call_002', tool: 'teleport', args: {} },
 *   ],
 *   { turn: 1, context: { state: 'exploring' } },
 * );
 * console.log(result.executed.map((call) => call.id)); // [ 'call_001' ]
 * console.log(result.feedback.failed_calls[0]?.code); // unknown_tool
 * console.log(positions.get('pc_1')); // vault
 * ```
 */
export function createToolGate<const TTools extends readonly AnyToolDefinition[], TContext = unknown>(
  options: ToolGateOptions<TTools, TContext>,
): CreatedToolGate<ToolNameOf<TTools>, TContext> {
  const byName = buildRegistry({
    tools: options?.tools,
    allowlist: options?.allowlist,
    confirmAvailable: options.confirm !== undefined,
  });
  const names = [...byName.keys()] as ToolNameOf<TTools>[]; // the keys are the tools' own names
  const policies = checkPolicies(options.policies ?? [], byName);
  const { keepTurns, limits, repeatedContent } = checkGateOptions(options);
  const clock = options.clock ?? systemClock;
  const events = createEmitter<ToolGateEvents>(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  const emit = <K extends keyof ToolGateEvents & string>(event: K, payload: ToolGateEvents[K]): void => {
    events.emit(event, payload);
  };
  const disabledTools = createDisabledTools(byName, clock, ({ tool, until, reason }) =>
    events.emit('disabled', { tool, until, reason }),
  );
  /** Outcomes of calls whose executor ran, by turn then call id (and in the store, if given). */
  const memory = createCallMemory({
    keepTurns,
    maxCalls: limits.maxRememberedCalls,
    maxBytes: limits.maxRememberedBytes,
    ...storeOptions(options),
    clock,
  });

  const toolNames: ReadonlySet<string> = new Set(byName.keys());
  function restore(snapshot: ToolGateSnapshot): void {
    const checked = readSnapshot(snapshot, toolNames, memory.owns);
    memory.load(checked.turns);
    disabledTools.load(checked.disabled);
  }
  if (options.snapshot !== undefined) restore(options.snapshot);

  const base: Omit<Runtime<TContext>, 'persist'> = {
    byName,
    names,
    policies,
    confirm: options.confirm,
    repair: options.repair,
    ledger:
      options.ledger === undefined
        ? undefined
        : { to: options.ledger, required: options.ledgerRequired !== false },
    clock,
    messages: options.messages ?? {},
    activeDisable: disabledTools.active,
    disable: disabledTools.disable,
    emit,
  };
  const answers = createStoredAnswers(base, memory, emit);
  const handle = createCallHandler({ answers, memory, limits, repeatedContent, emit });
  const processor: BatchProcessor<TContext> = {
    runtime: answers.runtime,
    handle,
    limits,
    emit,
    hears: (event) => events.listenerCount(event) > 0,
    batches: 0,
  };
  const gate: ToolGate<ToolNameOf<TTools>, TContext> = {
    names,
    process: (calls, run) => processBatch(processor, calls, run),
    disable(tool, until, reason = '') {
      disabledTools.disable(tool, until, reason);
    },
    enable: disabledTools.enable,
    disabled: disabledTools.list,
    // The remembered calls are copied once each and shared by later snapshots (frozen).
    snapshot: () => ({ version: 1, turns: memory.toSnapshot(), disabled: disabledTools.toSnapshot() }),
    restore,
    async forgetTurnsAfter(turn) {
      if (!Number.isSafeInteger(turn)) {
        throw new ToolsError('invalid_argument', `turn must be an integer, got ${String(turn)}`);
      }
      await memory.forgetAfter(turn);
    },
    async reset() {
      disabledTools.clear();
      await memory.forgetAfter(undefined);
    },
    on: events.on,
  };
  // Safe: a batch without a context reaches policies and executors as `undefined`, which
  // CreatedToolGate allows only when TContext admits it.
  return gate as CreatedToolGate<ToolNameOf<TTools>, TContext>;
}
