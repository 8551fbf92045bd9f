import { createCheckpoints } from '@parley/checkpoints';
import { createConflictLoop } from '@parley/conflict';
import {
  canonicalJson,
  createEmitter,
  createIdGenerator,
  createKernel,
  createOwnerId,
  type JsonValue,
  systemClock,
} from '@parley/core';
import { type ToolGate, toLoopGate } from '@parley/tools';
import { DEFAULT_JOURNAL_TTL_MS, DEFAULT_TURN_TIMEOUT_MS, positive, TurnsError } from './errors.js';
import { HEAD, type Head, journalWith, type SettledTurn, settledOf } from './head.js';
import { createHeadLease } from './lease.js';
import { moveBack, moveForward } from './moves.js';
import type { TurnRunner } from './runner-types.js';
import { openRunner } from './open.js';
import {
  checkpoint,
  failure,
  headOf,
  isLive,
  loadHead,
  presentNow,
  presentFor,
  presentOf,
  putBack,
  type RunnerCore,
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
  type Result = TurnResult<TRecord, TRequest, TData, THostCode>;
  const refuse = <C extends TurnRefusalCode | THostCode>(
    code: C,
    message: string,
    key?: string,
  ): { readonly ok: false; readonly code: C; readonly message: string; readonly reason: string } => {
    events.emit('refused', { code, key });
    return { ok: false, code, message, reason: message };
  };
  const replay = (settled: SettledTurn): Result => {
    events.emit('replayed', { turnId: settled.turnId, key: settled.key });
    const { turnId, turn, key, record } = settled; // the record `complete` returned, as JSON
    return { ok: true, replayed: true, turnId, turn, key, record: record as TRecord };
  };
  const assertOpened = (): void => {
    if (!opened) throw new TurnsError('not_opened', 'Call open() before the first turn');
  };
  const held = (): TurnRefusal => refuse('busy', `${core.headKey} is held by another turn, rollback or undo`);
  const { begin, end, settleStale } = createHeadLease(core, label, assertOpened, held);

  return {
    on: (event, listener) => events.on(event, listener),

    async open(openOptions = {}) {
      const opening = await openRunner(core, () => presentNow(core, 0, initialTurnId), label, openOptions);
      opened = true;
      return opening;
    },

    async run(input, runOptions = {}) {
      const [given, content] = [runOptions.key, canonicalJson(input as unknown as JsonValue)]; // inputs: plain JSON
      assertOpened();
      if (content.length > maxInput)
        return refuse('input_too_large', `The input is longer than ${maxInput} characters`, given);
      if (given !== undefined) {
        if (given.length === 0 || given.length > MAX_KEY_LENGTH) {
          return refuse('invalid_key', `A submission key has 1…${MAX_KEY_LENGTH} characters`);
        }
        await settleStale(); // this process's own turn is not in progress
        const head = await loadHead(core);
        const settled = settledOf(head.value, given);
        const seen = settled ?? (head.value.open?.key === given ? head.value.open : undefined);
        if (seen !== undefined && seen.content !== content) {
          return refuse('key_reused', `Submission ${given} was sent before with other content`, given);
        }
        if (settled !== undefined) return replay(settled);
        if (seen !== undefined && isLive(core, head))
          return refuse('in_progress', `Submission ${given} is running`, given);
      }
      const begun = await begin();
      if ('ok' in begun) return begun;
      const { lease } = begun;
      let done = false;
      try {
        const refusal = options.accept?.(input);
        if (refusal !== undefined)
          return refuse(refusal.code, 'message' in refusal ? refusal.message : refusal.reason, given);
        const commit = await core.checkpoints.commit();
        const branchCommitted = commit.ok && commit.committed;
        if (commit.ok && commit.committed) options.onLog?.(commit.log);
        const base = begun.stored.value;
        const [turnId, turn, startedAt] = [nextTurnId(), base.turn + 1, clock.now()];
        const key = given ?? turnId;
        const open = { key, content, turnId, turn, startedAt, deadlineAt: lease.expiresAt };
        const start = { input, turnId, turn, key, startedAt, branchCommitted };
        const before = presentFor(core, base);
        try {
          // basis: no read first; the compare-and-set lands only on the head the last write committed
          const marked = await kernel.apply(
            core.headKey,
            HEAD,
            (h: Head | undefined) => ({ value: h && { ...h, open }, effects: [] }),
            null,
            { lease, basis: begun.stored },
          );
          const opened = headOf(marked, core.headKey);
          events.emit('started', { turnId, turn, key });
          if (base.turnId !== core.synced.turnId) await putBack(core, before); // the committed head
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
          const after = presentNow(core, turn, turnId);
          const keyed = given !== undefined;
          const json = record as unknown as JsonValue; // a record is plain JSON (documented on `complete`)
          const kept = structuredClone(json); // the head's own copy: the caller gets `record` and may change it
          const last: SettledTurn = { key, content, turnId, turn, record: kept, keyed };
          const state = after.state as unknown as JsonValue;
          const committed = await kernel.apply(
            core.headKey,
            HEAD,
            (h: Head | undefined, _e: null, now: number) => ({
              value: h && {
                ...h,
                ...after,
                state,
                open: null,
                last,
                journal: journalWith(h.journal, last, now, journalTtlMs),
              },
              effects: [],
            }),
            null,
            { lease, release: true, basis: opened },
          );
          if (!committed.ok && committed.code === 'lease_lost') {
            await end(lease);
            done = true;
            await putBack(core, presentOf<TState>((await loadHead(core)).value));
            return refuse('conflict', `${turnId} lost the head's lease: nothing committed`, given);
          }
          core.committed.head = headOf(committed, core.headKey);
          done = true;
          core.synced.turnId = turnId;
          gate.restore(after.gate); // the gate forgets the call ids of earlier turns, as the head did
          events.emit('committed', { turnId, turn, key, ok: outcome.ok });
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
          if (!done) await end(lease);
          done = true;
          // back to what is committed (the turn's own commit, when the store wrote it and then failed)
          const now = await loadHead(core).catch(() => undefined);
          const back =
            now === undefined || now.value.turnId === base.turnId ? before : presentOf<TState>(now.value);
          await putBack(core, back).catch(() => undefined);
          throw failure(core, turnId, key, err);
        }
      } finally {
        if (!done) await end(lease);
      }
    },

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
