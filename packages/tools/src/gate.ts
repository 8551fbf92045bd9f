import { createEmitter, systemClock } from '@parley/core';
import type { AnyToolDefinition, ToolNameOf } from './define.js';
import { ToolsError } from './errors.js';
import type { DisabledTool } from './disabled-tool.js';
import type { ToolGate, ToolGateOptions, ToolRunOptions } from './gate-types.js';
import {
  baseOf,
  checkCall,
  marked,
  repeatedIds,
  replay,
  replayAs,
  requestedOf,
} from './internal/call-shape.js';
import { judgeCall } from './internal/judge.js';
import { createCallMemory, type Remembered, type StoredLookup, utf8Length } from './internal/memory.js';
import { checkPolicies, checkRun, checkUntil, isConfirmOption, storeOptions } from './internal/options.js';
import { refuse } from './internal/refuse.js';
import type { CallBase, Runtime, Settled } from './internal/runtime.js';
import { checkLimits } from './limits.js';
import { buildRegistry } from './registry.js';
import { readSnapshot, type ToolGateSnapshot } from './snapshot.js';
import type {
  DisableUntil,
  ExecutedToolCall,
  FailedToolCall,
  ToolCallRecord,
  ToolGateEvents,
} from './types.js';

/** A call being judged; `ended` settles when it is done, made only when another call waits for it. */
interface Inflight {
  ended: Promise<void> | undefined;
  release: (() => void) | undefined;
}

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
 *       context.state === 'combat' ? { reason: '区域移动锁未解除', toolReason: 'area_locked' } : undefined,
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
): ToolGate<ToolNameOf<TTools>, TContext> {
  const byName = buildRegistry({
    tools: options?.tools,
    allowlist: options?.allowlist,
    confirmAvailable: options.confirm !== undefined,
  });
  const names = [...byName.keys()] as ToolNameOf<TTools>[]; // the keys are the tools' own names
  const policies = checkPolicies(options.policies ?? [], byName);
  if (options.confirm !== undefined && !isConfirmOption(options.confirm)) {
    throw new ToolsError('invalid_argument', 'confirm must be a @parley/confirm gate or a function');
  }
  if (options.repair !== undefined && typeof options.repair !== 'function') {
    throw new ToolsError('invalid_argument', 'repair must be a function');
  }
  const keepTurns = options.keepTurns ?? 2;
  if (!Number.isInteger(keepTurns) || keepTurns < 1) {
    throw new ToolsError('invalid_argument', `keepTurns must be an integer ≥ 1, got ${String(keepTurns)}`);
  }
  const limits = checkLimits(options.limits);
  const repeatedContent = options.repeatedContent ?? 'run';
  if (!['run', 'replay', 'refuse'].includes(repeatedContent)) {
    throw new ToolsError('invalid_argument', 'repeatedContent must be "run", "replay" or "refuse"');
  }
  let batches = 0;
  const clock = options.clock ?? systemClock;
  const events = createEmitter<ToolGateEvents>(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  const disabledTools = new Map<string, DisabledTool>();
  /** Outcomes of calls whose executor ran, by turn then call id (and in the store, if given). */
  const memory = createCallMemory({
    keepTurns,
    maxCalls: limits.maxRememberedCalls,
    maxBytes: limits.maxRememberedBytes,
    ...storeOptions(options),
  });
  /** Calls being judged, by turn and id; a later call with the same key waits for the first to end. */
  const inflight = new Map<string, Inflight>();

  function restore(snapshot: ToolGateSnapshot): void {
    const checked = readSnapshot(snapshot, new Set(byName.keys()));
    memory.load(checked.turns);
    disabledTools.clear();
    for (const entry of checked.disabled) disabledTools.set(entry.tool, entry);
  }
  if (options.snapshot !== undefined) restore(options.snapshot);

  const isActive = (entry: DisabledTool, turn: number | undefined): boolean =>
    'at' in entry.until ? clock.now() < entry.until.at : turn === undefined || turn < entry.until.turn;

  function disable(tool: string, until: DisableUntil, reason: string): void {
    if (!byName.has(tool)) {
      throw new ToolsError('invalid_argument', `There is no tool named "${String(tool)}" to disable`, {
        details: { tool: String(tool) },
      });
    }
    const checked = checkUntil(until);
    const entry: DisabledTool = { tool, until: checked, reason: typeof reason === 'string' ? reason : '' };
    disabledTools.set(tool, entry);
    events.emit('disabled', { tool, until: checked, reason: entry.reason });
  }

  const runtime: Runtime<TContext> = {
    byName,
    names,
    policies,
    confirm: options.confirm,
    repair: options.repair,
    clock,
    messages: options.messages ?? {},
    activeDisable(tool, turn) {
      const entry = disabledTools.get(tool);
      if (entry === undefined) return undefined;
      if (isActive(entry, turn)) return entry;
      if ('at' in entry.until) disabledTools.delete(tool); // a time only moves forward; turns may be replayed
      return undefined;
    },
    disable,
    emit: (event, payload) => {
      events.emit(event, payload);
    },
    persist: memory.persistent
      ? {
          async claim(turn, base) {
            let found: StoredLookup | undefined;
            try {
              found = await memory.claim(turn, base, clock.now());
            } catch (error) {
              return storeFailed(turn, base, error);
            }
            return found === undefined ? undefined : answerStored(turn, base, found);
          },
          async release(turn, base, settled) {
            try {
              await memory.release(turn, base, settled);
            } catch (error) {
              events.emit('error', {
                turn,
                id: base.id,
                tool: settled.record.requested.tool,
                stage: 'store',
                error,
              });
            }
          },
        }
      : undefined,
  };

  function unknownOutcome(turn: number, base: CallBase): Settled {
    return refuse(
      runtime,
      turn,
      base,
      'outcome_unknown',
      `The call "${base.id}" was started before and its outcome is unknown (a restart, or another replica running it); it was not run again`,
    );
  }

  function storeFailed(turn: number, base: CallBase, error: unknown): Settled {
    events.emit('error', { turn, id: base.id, tool: base.tool, stage: 'store', error });
    return refuse(
      runtime,
      turn,
      base,
      'store_failed',
      `The tool "${base.tool}" was not run: its run could not be recorded`,
    );
  }

  /** The answer to a call whose id is remembered: a replay for the same content, else `call_id_reused`. */
  function answerRemembered(turn: number, base: CallBase, remembered: Remembered): Settled {
    if (remembered.content === base.content) return replay(remembered.settled);
    return reused(turn, base, remembered.settled.record.requested.tool);
  }

  function reused(turn: number, base: CallBase, earlierTool: string): Settled {
    const earlier = earlierTool === base.requested.tool ? `${earlierTool} with other arguments` : earlierTool;
    return refuse(
      runtime,
      turn,
      base,
      'call_id_reused',
      `The id "${base.id}" was already used in this turn for another call (${earlier}); this call did not run. Send it again with a new id`,
    );
  }

  /** Remembers locally what the store holds, when there is room (the store stays the record otherwise). */
  function keep(turn: number, id: string, entry: Remembered): void {
    const size = utf8Length(id) + utf8Length(entry.content);
    if (!memory.reserve(turn, size)) return;
    memory.unreserve(size);
    memory.remember(turn, id, entry);
  }

  /** The answer to a call the store already holds (remembered locally from now on), or `undefined`. */
  function answerStored(turn: number, base: CallBase, found: StoredLookup): Settled | undefined {
    switch (found.kind) {
      case 'none':
        return undefined;
      case 'corrupt':
        events.emit('error', { turn, id: base.id, tool: base.tool, stage: 'store', error: found.error });
        return unknownOutcome(turn, base);
      case 'done':
        keep(turn, base.id, found);
        return answerRemembered(turn, base, found);
      case 'executing': {
        if (found.content !== undefined && found.content !== base.content)
          return reused(turn, base, found.tool);
        const settled = unknownOutcome(turn, base);
        keep(turn, base.id, { settled, content: base.content });
        return settled;
      }
    }
  }

  async function handle(
    raw: unknown,
    index: number,
    repeated: ReadonlySet<string>,
    run: ToolRunOptions<TContext>,
    batch: number,
  ): Promise<Settled> {
    const { turn } = run;
    const shape = checkCall(raw, index, limits);
    if (!shape.ok) {
      return refuse(runtime, turn, shape.base, 'invalid_call', `The call is malformed: ${shape.problem}`);
    }
    const call = shape.call;
    const base: CallBase = {
      id: call.id,
      tool: call.tool,
      requested: requestedOf(call),
      content: call.content,
    };
    if (repeated.has(call.id)) {
      return refuse(
        runtime,
        turn,
        base,
        'duplicate_call_id',
        `The id "${call.id}" is used by more than one call in this batch; none of them ran. Give each call its own id`,
      );
    }
    if (run.signal?.aborted === true) {
      return refuse(runtime, turn, base, 'cancelled', 'The batch was cancelled before this call ran');
    }
    if (memory.stale(turn)) {
      return refuse(
        runtime,
        turn,
        base,
        'stale_turn',
        `Turn ${turn} is older than the turns this gate remembers, so it cannot tell what already ran; nothing in it runs`,
      );
    }
    const key = `${turn}\u0000${call.id}`;
    for (let waiting = inflight.get(key); waiting !== undefined; waiting = inflight.get(key)) {
      // The promise is made by the first call that waits: an uncontended call allocates none.
      const current = waiting;
      current.ended ??= new Promise<void>((resolve) => {
        current.release = resolve;
      });
      await current.ended;
    }
    const recorded = memory.local(turn, call.id);
    if (recorded !== undefined) return answerRemembered(turn, base, recorded);
    const mine: Inflight = { ended: undefined, release: undefined };
    inflight.set(key, mine);
    const size = utf8Length(call.id) + utf8Length(call.content);
    let reserved = false;
    try {
      if (memory.persistent) {
        let found: StoredLookup;
        try {
          found = await memory.stored(turn, base.id);
        } catch (error) {
          return storeFailed(turn, base, error);
        }
        const answered = answerStored(turn, base, found);
        if (answered !== undefined) return answered;
      }
      reserved = memory.reserve(turn, size);
      if (!reserved) {
        return refuse(
          runtime,
          turn,
          base,
          'memory_full',
          `The tool "${call.tool}" was not run: the gate remembers as many calls as it may (limits.maxRememberedCalls / maxRememberedBytes)`,
        );
      }
      const same = memory.sameContent(turn, call.content, batch);
      if (same !== undefined && repeatedContent === 'refuse') {
        return refuse(
          runtime,
          turn,
          base,
          'already_applied',
          `The same call (${call.tool} with the same arguments) already ran in this turn as "${same.id}"; it did not run again`,
        );
      }
      if (same !== undefined && repeatedContent === 'replay') {
        const settled = replayAs(base, same.id, same.entry.settled);
        memory.remember(turn, call.id, { settled, content: call.content }, batch);
        return settled;
      }
      const judged = await judgeCall(runtime, call, run);
      const repair = judged.record.repair;
      if (repair !== undefined) events.emit('repaired', { turn, id: call.id, repair });
      const settled = same === undefined || !judged.ran ? judged : marked(judged, same.id);
      if (settled.ran || settled.failed?.code === 'outcome_unknown') {
        memory.remember(turn, call.id, { settled, content: call.content }, batch);
      }
      return settled;
    } finally {
      if (reserved) memory.unreserve(size);
      inflight.delete(key);
      mine.release?.();
    }
  }

  return {
    names,
    async process(calls, run) {
      checkRun(run);
      if (!Array.isArray(calls))
        throw new ToolsError('invalid_argument', 'calls must be a list of tool calls');
      // A batch over the cap is refused whole: every call, none judged.
      const over = calls.length > limits.maxBatchCalls;
      const tooMany = `The batch has ${calls.length} calls, over the ${limits.maxBatchCalls} allowed; none ran. Send fewer at once`;
      const repeated = repeatedIds(calls);
      const batch = ++batches;
      const executed: ExecutedToolCall[] = [];
      const failed: FailedToolCall[] = [];
      const records: ToolCallRecord[] = [];
      for (let index = 0; index < calls.length; index++) {
        const settled = over
          ? refuse(runtime, run.turn, baseOf(calls[index], index, limits), 'too_many_calls', tooMany)
          : await handle(calls[index], index, repeated, run, batch);
        records.push(settled.record);
        if (settled.executed !== undefined) {
          executed.push(settled.executed);
          if (!settled.executed.replayed) events.emit('executed', { turn: run.turn, call: settled.executed });
        }
        if (settled.failed !== undefined) {
          failed.push(settled.failed);
          if (!settled.record.replayed) events.emit('refused', { turn: run.turn, failed: settled.failed });
        }
      }
      return { executed, feedback: { failed_calls: failed }, records };
    },
    disable(tool, until, reason = '') {
      disable(tool, until, reason);
    },
    enable: (tool) => disabledTools.delete(tool),
    disabled: (turn) => [...disabledTools.values()].filter((entry) => isActive(entry, turn)),
    snapshot: () =>
      readSnapshot(
        { version: 1, turns: memory.toSnapshot(), disabled: [...disabledTools.values()] },
        new Set(byName.keys()),
      ),
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
    on: (event, listener) => events.on(event, listener),
  };
}
