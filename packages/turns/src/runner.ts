import { createCheckpoints } from '@parley/checkpoints';
import { createConflictLoop } from '@parley/conflict';
import {
  canonicalJson,
  createEmitter,
  createIdGenerator,
  encodeStoreKey,
  type JsonValue,
  systemClock,
} from '@parley/core';
import { type ToolGate, toLoopGate } from '@parley/tools';
import { DEFAULT_JOURNAL_TTL_MS, DEFAULT_TURN_TIMEOUT_MS, positive, TurnsError } from './errors.js';
import { type Head, readSettled, type SettledTurn, type StoredHead, toJson } from './head.js';
import type { TurnRunner } from './runner-types.js';
import { openRunner } from './open.js';
import {
  abandon,
  catchUp,
  checkpoint,
  failure,
  follow,
  isLive,
  journal,
  loadHead,
  presentNow,
  presentOf,
  putBack,
  type RunnerCore,
  release,
} from './sync.js';
import { MAX_INPUT_LENGTH, MAX_KEY_LENGTH, type TurnRefusal, type TurnRefusalCode } from './refusals.js';
import type { TurnCheckpoint, TurnResult, TurnRunnerEvents, TurnRunnerOptions } from './types.js';

/**
 * Creates a turn runner: each `run` takes one player input through the whole turn — refuse or
 * accept it, end a pending rollback, prepare the request, run the conflict loop with the tool gate,
 * write the turn's record, commit, journal the submission and take a checkpoint.
 *
 * Use it in any host where a model answers turns against authoritative state (a game master, a
 * narrative agent, a tutor): the host keeps its state, prompts and rules in the hooks, and gets
 * exactly-once turns, rollback and undo, and recovery after a restart from the Store.
 *
 * A turn commits with one compare-and-set of the runner's head (the state after the turn and its
 * record); until then its effects live only in the host's memory, so a turn that throws, loses
 * the race or dies with its process applies nothing. The journal entry and the checkpoint follow
 * the commit and are caught up when a write fails. A submission `key` settles once.
 *
 * @throws TurnsError `invalid_options` for an empty `keyPrefix` or a timeout / TTL that is not a
 * positive integer (and CheckpointsError `invalid_options` for a bad `maxCheckpoints`).
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
    throw new TurnsError('invalid_options', 'keyPrefix must be a non-empty string');
  }
  const turnTimeoutMs = positive('turnTimeoutMs', options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS);
  const journalTtlMs = positive('journalTtlMs', options.journalTtlMs ?? DEFAULT_JOURNAL_TTL_MS);
  const maxInput = positive('maxInputLength', options.maxInputLength ?? MAX_INPUT_LENGTH);
  const clock = options.clock ?? systemClock;
  const nextTurnId = options.generateTurnId ?? createIdGenerator({ prefix: 'turn_' });
  const initialTurnId = options.initialTurnId ?? 'turn_0';
  const events = createEmitter<TurnRunnerEvents>();
  const core: RunnerCore<TState> = {
    store,
    clock,
    headKey: `${prefix}turns:head`,
    journalTtlMs,
    keyOf: (key) => `${prefix}turns:key:${encodeStoreKey(key)}`,
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
    behind: { journal: false, checkpoint: false },
    running: new Set(),
  };
  const label = (turn: number): string => `turn ${turn}`;
  let opened = false;

  type Result = TurnResult<TRecord, TRequest, TData, THostCode>;
  const refuse = <C extends TurnRefusalCode | THostCode>(
    code: C,
    reason: string,
    key?: string,
  ): { readonly ok: false; readonly code: C; readonly reason: string } => {
    events.emit('refused', { code, key });
    return { ok: false, code, reason };
  };
  /** A turn of this process whose failure could not release its lease (the store was down). */
  let stale: string | undefined;
  const replay = (settled: SettledTurn): Result => {
    events.emit('replayed', { turnId: settled.turnId, key: settled.key });
    const { turnId, turn, key, record } = settled; // the record `complete` returned, as JSON
    return { ok: true, replayed: true, turnId, turn, key, record: record as TRecord };
  };
  const present = (turn: number, turnId: string): TurnCheckpoint<TState> => presentNow(core, turn, turnId);
  /** Ends a turn that threw: back to the committed present, the lease released. */
  async function fail(
    turnId: string,
    key: string,
    before: TurnCheckpoint<TState>,
    err: unknown,
  ): Promise<never> {
    if (!(await release(core, turnId, before))) stale = turnId; // the next call releases it
    throw failure(core, turnId, key, err);
  }

  /** Whether the open turn holds the runner: running, or another process's before its deadline. */
  const held = (head: Head): boolean => head.open?.turnId !== stale && isLive(core, head);

  async function guard(): Promise<StoredHead | TurnRefusal> {
    if (!opened) throw new TurnsError('not_opened', 'Call open() before the first turn');
    let stored = await loadHead(core);
    const open = stored.head.open;
    if (open !== null) {
      if (held(stored.head)) {
        return refuse('busy', `Turn ${open.turnId} is running`);
      }
      const cleared = await abandon(core, stored, open.turnId);
      if (cleared === undefined) return refuse('conflict', 'Another process settled the open turn first');
      stored = cleared;
    }
    if (stale !== undefined) {
      await putBack(core, presentOf<TState>(stored.head));
      stale = undefined;
    }
    return catchUp(core, stored, false, label);
  }

  return {
    on: (event, listener) => events.on(event, listener),

    async open(openOptions = {}) {
      const opening = await openRunner(core, () => present(0, initialTurnId), label, openOptions);
      opened = true;
      return opening;
    },

    async run(input, runOptions = {}) {
      const given = runOptions.key;
      const content = canonicalJson(input as unknown as JsonValue); // inputs are plain JSON (documented)
      if (!opened) throw new TurnsError('not_opened', 'Call open() before the first turn');
      if (content.length > maxInput)
        return refuse('input_too_large', `The input is longer than ${maxInput} characters`, given);
      if (given !== undefined) {
        if (given.length === 0 || given.length > MAX_KEY_LENGTH) {
          return refuse('invalid_key', `A submission key has 1…${MAX_KEY_LENGTH} characters`);
        }
        const head = (await loadHead(core)).head;
        const settled = head.last?.key === given ? head.last : await readSettled(store, core.keyOf(given));
        const seen = settled ?? (head.open?.key === given ? head.open : undefined);
        if (seen !== undefined && seen.content !== content) {
          return refuse('key_reused', `Submission ${given} was sent before with other content`, given);
        }
        if (settled !== undefined) return replay(settled);
        if (seen !== undefined && held(head))
          return refuse('in_progress', `Submission ${given} is running`, given);
      }
      const guarded = await guard();
      if ('ok' in guarded) return guarded;
      const refusal = options.accept?.(input);
      if (refusal !== undefined) return refuse(refusal.code, refusal.reason, given);
      const commit = await core.checkpoints.commit();
      const branchCommitted = commit.ok && commit.committed;
      if (commit.ok && commit.committed) options.onLog?.(commit.log);
      const [turnId, turn, startedAt] = [nextTurnId(), guarded.head.turn + 1, clock.now()];
      const key = given ?? turnId;
      const open = { key, content, turnId, turn, startedAt, deadlineAt: startedAt + turnTimeoutMs };
      const leased = await store.compareAndSet(
        core.headKey,
        guarded.version,
        toJson({ ...guarded.head, open }),
      );
      if (!leased.ok) return refuse('busy', 'Another turn started first', given);
      core.running.add(key);
      events.emit('started', { turnId, turn, key });
      const start = { input, turnId, turn, key, startedAt, branchCommitted };
      const before = present(guarded.head.turn, guarded.head.turnId);
      try {
        const plan = await options.prepare(start);
        const loop = createConflictLoop<TView>({
          ...options.loop,
          clock,
          gate: toLoopGate(gate, () => ({ turn, context: plan.context })),
        });
        const outcome = await loop.run({
          input: plan.request,
          generate: plan.generate,
          readState: plan.readState,
          ...(runOptions.signal === undefined ? {} : { signal: runOptions.signal }),
        });
        const record = await options.complete(start, outcome, plan.data);
        const after = present(turn, turnId);
        const keyed = given !== undefined;
        const json = record as unknown as JsonValue; // a record is plain JSON (documented on `complete`)
        const last: SettledTurn = { key, content, turnId, turn, record: json, keyed };
        const state = after.state as unknown as JsonValue;
        const head: Head = { ...guarded.head, ...after, state, open: null, last };
        const committed = await store.compareAndSet(core.headKey, leased.version, toJson(head));
        if (!committed.ok) {
          await putBack(core, presentOf<TState>((await loadHead(core)).head));
          return refuse('conflict', `The head moved while ${turnId} ran: nothing committed`, given);
        }
        gate.restore(after.gate); // the gate forgets the call ids of earlier turns, as the head did
        events.emit('committed', { turnId, turn, key, ok: outcome.ok });
        if (keyed) await journal(core, last);
        const taken = await checkpoint(core, after, label(turn));
        return {
          ok: true,
          replayed: false,
          turnId,
          turn,
          key,
          record,
          outcome,
          data: plan.data,
          branchCommitted,
          checkpoint: taken.ok ? { ok: true } : taken,
        };
      } catch (err) {
        return fail(turnId, key, before, err);
      } finally {
        core.running.delete(key);
      }
    },

    async rollback(id, rollbackOptions) {
      const guarded = await guard();
      if ('ok' in guarded) return guarded;
      const { turn, turnId } = guarded.head;
      return follow(
        core,
        guarded,
        await core.checkpoints.rollback(id, present(turn, turnId), rollbackOptions),
      );
    },

    async undo(undoOptions) {
      const guarded = await guard();
      return 'ok' in guarded ? guarded : follow(core, guarded, await core.checkpoints.undo(undoOptions));
    },

    log: () => core.checkpoints.log(),
  };
}
