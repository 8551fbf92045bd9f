import { createCheckpoints } from '@parley/checkpoints';
import { createIdGenerator, createKernel, createEmitter, createOwnerId, systemClock } from '@parley/core';
import type { ToolGate } from '@parley/tools';
import { DEFAULT_JOURNAL_TTL_MS, DEFAULT_TURN_TIMEOUT_MS, positive, TurnsError } from './errors.js';
import { createHeadLease } from './lease.js';
import { moveBack, moveForward } from './moves.js';
import { openRunner } from './open.js';
import { MAX_INPUT_LENGTH, type TurnRefusal } from './refusals.js';
import { refuse, runTurn } from './run.js';
import type { TurnRunner } from './runner-types.js';
import { presentNow, type RunnerCore } from './sync.js';
import type { TurnCheckpoint, TurnRunnerEvents, TurnRunnerOptions } from './types.js';

/**
 * Creates a turn runner: each `run` takes one player input through the whole turn — refuse or
 * accept it, end a pending rollback, prepare the request, run the conflict loop with the tool gate,
 * write the turn's record, commit, journal the submission and take a checkpoint.
 *
 * Use it in any host where a model answers turns against authoritative state (a game master, a
 * narrative agent, a tutor): the host keeps its state, prompts and rules in the hooks, and gets
 * exactly-once turns, rollback and undo, and recovery after a restart from the Store.
 *
 * A turn takes the lease of the runner's head (a kernel record), puts the committed head back into
 * the host, runs, and commits with one fenced write of the head: the state after the turn, its
 * record and its submission key in the head's journal. Until then its effects live only in the
 * host's memory, so a turn that throws, loses its lease or dies with its process applies nothing,
 * and two hosts on one store never lose each other's turns. The checkpoint follows the commit and
 * is caught up when its write fails. A submission `key` settles once.
 *
 * @throws TurnsError `invalid_argument` for an empty `keyPrefix` or a timeout / TTL that is not a
 * positive integer (and CheckpointsError `invalid_argument` for a bad `maxCheckpoints`).
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createToolGate, defineTool } from '@parley/tools';
 * import { createTurnRunner } from '@parley/turns';
 * import { z } from 'zod';
 *
 * let world = { hp: 10 };
 * const hit = defineTool({
 *   name: 'hit', description: 'Deals damage', args: z.object({ damage: z.number().int() }), reasons: [],
 *   execute: ({ damage }) => { world = { hp: world.hp - damage }; return world.hp; },
 * });
 * const clock = createManualClock();
 * const runner = createTurnRunner({
 *   store: createMemoryStore({ clock }),
 *   keyPrefix: 'game:1:',
 *   clock,
 *   gate: createToolGate({ tools: [hit], allowlist: ['hit'], clock }),
 *   capture: () => world,
 *   restore: (state) => { world = structuredClone(state); },
 *   prepare: (turn) => ({
 *     request: turn.input,
 *     generate: () => ({ text: 'The goblin hits you.', tool_calls: [{ id: 'c1', tool: 'hit', args: { damage: 3 } }] }),
 *     readState: () => world,
 *     context: undefined,
 *     data: null,
 *   }),
 *   complete: (turn, outcome) => ({ turn: turn.turn, text: outcome.ok ? outcome.output.text : '' }),
 * });
 * await runner.open();
 * const first = await runner.run('I open the door', { key: 'msg_1' });
 * const again = await runner.run('I open the door', { key: 'msg_1' });
 * console.log(first.ok && first.record, again.ok && again.replayed, world.hp); // { turn: 1, text: 'The goblin hits you.' } true 7
 * ```
 */
export function createTurnRunner<
  TInput,
  TState,
  TView,
  TRequest,
  TRecord,
  TContext,
  TData,
  THostCode extends string = never,
>(
  options: TurnRunnerOptions<TInput, TState, TView, TRequest, TRecord, TContext, TData, THostCode>,
): TurnRunner<TInput, TState, TRecord, TRequest, TData, THostCode> {
  const { store, keyPrefix: prefix, gate } = options;
  if (typeof prefix !== 'string' || prefix.length === 0) {
    throw new TurnsError('invalid_argument', 'keyPrefix must be a non-empty string');
  }
  const turnTimeoutMs = positive('turnTimeoutMs', options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS);
  const journalTtlMs = positive('journalTtlMs', options.journalTtlMs ?? DEFAULT_JOURNAL_TTL_MS);
  const maxInput = positive('maxInputLength', options.maxInputLength ?? MAX_INPUT_LENGTH);
  const clock = options.clock ?? systemClock;
  const nextTurnId = options.generateTurnId ?? createIdGenerator({ prefix: 'turn_' });
  const initialTurnId = options.initialTurnId ?? 'turn_0';
  const events = createEmitter<TurnRunnerEvents>();
  const kernel = createKernel({ store, clock, owner: createOwnerId('turns') });
  const core: RunnerCore<TState> = {
    kernel,
    clock,
    headKey: `${prefix}turns:head`,
    journalTtlMs,
    turnTimeoutMs,
    checkpoints: createCheckpoints<TurnCheckpoint<TState>>({
      clock,
      ...options.checkpoints,
      store: options.checkpoints?.store ?? store,
      keyPrefix: options.checkpoints?.keyPrefix ?? prefix,
    }),
    // the runner only snapshots and restores the gate; its context type does not matter here
    gate: gate as ToolGate<string, unknown>,
    capture: options.capture,
    restore: options.restore,
    onLog: options.onLog,
    events,
    behind: { checkpoint: false },
    synced: { turnId: undefined },
    committed: { head: undefined },
  };
  const label = (turn: number): string => `turn ${turn}`;
  let opened = false;
  const assertOpened = (): void => {
    if (!opened) throw new TurnsError('not_opened', 'Call open() before the first turn');
  };
  const held = (): TurnRefusal =>
    refuse(events, 'busy', `${core.headKey} is held by another turn, rollback or undo`);
  const lease = createHeadLease(core, label, assertOpened, held);
  const { begin, end } = lease;
  const setup = { core, options, lease, nextTurnId, maxInput, assertOpened };

  return {
    on: (event, listener) => events.on(event, listener),

    async open(openOptions = {}) {
      const opening = await openRunner(core, () => presentNow(core, 0, initialTurnId), label, openOptions);
      opened = true;
      return opening;
    },

    run: (input, runOptions) => runTurn(setup, input, runOptions),

    async rollback(id, rollbackOptions) {
      const begun = await begin();
      return 'ok' in begun ? begun : moveBack(core, begun, id, rollbackOptions, end);
    },

    async undo(undoOptions) {
      const begun = await begin();
      return 'ok' in begun ? begun : moveForward(core, begun, undoOptions, end);
    },

    log: () => core.checkpoints.log(),
  };
}
