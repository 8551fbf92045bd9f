// One turn of a runner, as named steps: check its submission key, mark it open on the head under
// the lease, run the conflict loop, commit the head with its record and journal, take the checkpoint.
import { createConflictLoop } from '@parley/conflict';
import { canonicalJson, copyWith, type Emitter, type JsonValue, type Lease } from '@parley/core';
import { toLoopGate } from '@parley/tools';
import {
  HEAD,
  type Head,
  journalWith,
  type OpenTurn,
  type SettledTurn,
  type StoredHead,
  settledOf,
} from './head.js';
import { copyOf } from './copy.js';
import { type HeadLease, withdraw } from './lease.js';
import { MAX_KEY_LENGTH } from './refusals.js';
import {
  checkpoint,
  failure,
  headOf,
  isLive,
  loadHead,
  presentFor,
  presentNow,
  presentOf,
  putBack,
  type RunnerCore,
} from './sync.js';
import type { TurnCheckpoint, TurnResult, TurnRunnerEvents, TurnRunnerOptions } from './types.js';

/** @internal What the turns of one runner share, made once by `createTurnRunner`. */
export interface TurnSetup<
  TInput,
  TState,
  TView,
  TRequest,
  TRecord,
  TContext,
  TData,
  THostCode extends string,
> {
  readonly core: RunnerCore<TState>;
  readonly options: TurnRunnerOptions<TInput, TState, TView, TRequest, TRecord, TContext, TData, THostCode>;
  readonly lease: HeadLease;
  readonly nextTurnId: () => string;
  readonly maxInput: number;
  readonly assertOpened: () => void;
}

/** @internal A refusal with `code`, reported as a `refused` event. */
export function refuse<C extends string>(
  events: Emitter<TurnRunnerEvents>,
  code: C,
  message: string,
  key?: string,
): { readonly ok: false; readonly code: C; readonly message: string; readonly reason: string } {
  events.emit('refused', { code, key });
  return { ok: false, code, message, reason: message };
}

/** A submission `given` seen before: its journaled result, or why it cannot run now; else `undefined`. */
function keyVerdict<TState, TRecord, TRequest, TData, THostCode extends string>(
  core: RunnerCore<TState>,
  head: StoredHead,
  given: string,
  content: string,
): TurnResult<TRecord, TRequest, TData, THostCode> | undefined {
  const settled = settledOf(head.value, given);
  const seen = settled ?? (head.value.open?.key === given ? head.value.open : undefined);
  if (seen !== undefined && seen.content !== content) {
    return refuse(core.events, 'key_reused', `Submission ${given} was sent before with other content`, given);
  }
  if (settled !== undefined) {
    core.events.emit('replayed', { turnId: settled.turnId, key: settled.key });
    const { turnId, turn, key, record } = settled; // the record `complete` returned, as JSON
    return { ok: true, replayed: true, turnId, turn, key, record: record as TRecord };
  }
  if (seen !== undefined && isLive(core, head))
    return refuse(core.events, 'in_progress', `Submission ${given} is running`, given);
  return undefined;
}

/** Commits the turn: the present after it, its journal entry; the lease is given back in the same write. */
function commitHead<TState>(
  core: RunnerCore<TState>,
  lease: Lease,
  basis: StoredHead,
  after: TurnCheckpoint<TState>,
  last: SettledTurn,
) {
  const state = after.state as unknown as JsonValue;
  const { journalTtlMs } = core;
  return core.kernel.apply(
    core.headKey,
    HEAD,
    (h: Head | undefined, _e: null, now: number) => ({
      value:
        h &&
        copyWith(
          h,
          copyWith(after, {
            state,
            open: null,
            last,
            journal: journalWith(h.journal, last, now, journalTtlMs),
          }),
        ),
      effects: [],
    }),
    null,
    { lease, release: true, basis },
  );
}

/**
 * @internal Runs one turn of `setup`'s runner: refused, answered from the journal, or run under the
 * head's lease and committed in one fenced write. A throw puts the host back at the last commit.
 */
export async function runTurn<
  TInput,
  TState,
  TView,
  TRequest,
  TRecord,
  TContext,
  TData,
  THostCode extends string,
>(
  setup: TurnSetup<TInput, TState, TView, TRequest, TRecord, TContext, TData, THostCode>,
  input: TInput,
  runOptions: { readonly key?: string; readonly signal?: AbortSignal } = {},
): Promise<TurnResult<TRecord, TRequest, TData, THostCode>> {
  const { core, options, maxInput } = setup;
  const { events, clock } = core;
  const { begin, end, settleStale } = setup.lease;
  const [given, content] = [runOptions.key, canonicalJson(input as unknown as JsonValue)]; // inputs: plain JSON
  setup.assertOpened();
  if (content.length > maxInput)
    return refuse(events, 'input_too_large', `The input is longer than ${maxInput} characters`, given);
  if (given !== undefined) {
    if (given.length === 0 || given.length > MAX_KEY_LENGTH) {
      return refuse(events, 'invalid_key', `A submission key has 1…${MAX_KEY_LENGTH} characters`);
    }
    await settleStale(); // this process's own turn is not in progress
    const seen = keyVerdict<TState, TRecord, TRequest, TData, THostCode>(
      core,
      await loadHead(core),
      given,
      content,
    );
    if (seen !== undefined) return seen;
  }
  const refusal = options.accept?.(input); // before anything happens: no lease taken, nothing written
  if (refusal !== undefined)
    return refuse(events, refusal.code, 'message' in refusal ? refusal.message : refusal.reason, given);
  let made: string | undefined; // the turn's id, made once (the lease's write may run its mark again)
  const idOf = (): string => (made ??= setup.nextTurnId());
  const mark = (head: Head, lease: Lease, now: number): OpenTurn => {
    const turnId = idOf();
    return {
      key: given ?? turnId,
      content,
      turnId,
      turn: head.turn + 1,
      startedAt: now,
      deadlineAt: lease.expiresAt,
    };
  };
  const begun = await begin(mark); // the lease and the open turn, in one write
  if ('ok' in begun) return begun;
  const { lease } = begun;
  let done = false;
  try {
    const commit = await core.checkpoints.commit();
    const branchCommitted = commit.ok && commit.committed;
    if (commit.ok && commit.committed) options.onLog?.(commit.log);
    const base = begun.stored.value;
    const open = base.open ?? mark(base, lease, clock.now()); // begin marked it on this head
    const { turnId, turn, key, startedAt } = open;
    const start = { input, turnId, turn, key, startedAt, branchCommitted };
    const before = presentFor(core, base);
    try {
      events.emit('started', { turnId, turn, key });
      if (base.turnId !== core.synced.turnId) await putBack(core, before); // the committed head
      const plan = await options.prepare(start);
      const loop = createConflictLoop<TView>(
        copyWith(options.loop ?? {}, {
          clock,
          gate: toLoopGate(options.gate, () => ({ turn, context: plan.context })),
        }),
      );
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
      const kept = copyOf(json); // the head's own copy: the caller gets `record` and may change it
      const last: SettledTurn = { key, content, turnId, turn, record: kept, keyed };
      const committed = await commitHead(core, lease, begun.stored, after, last);
      if (!committed.ok && committed.code === 'lease_lost') {
        await end(lease);
        done = true;
        await putBack(core, presentOf<TState>((await loadHead(core)).value));
        return refuse(events, 'conflict', `${turnId} lost the head's lease: nothing committed`, given);
      }
      core.committed.head = headOf(committed, core.headKey);
      done = true;
      core.synced.turnId = turnId;
      options.gate.restore(after.gate); // the gate forgets the turn's call ids, as the head does
      events.emit('committed', { turnId, turn, key, ok: outcome.ok });
      const taken = await checkpoint(core, after, `turn ${turn}`);
      const { data } = plan;
      const checkpointResult = taken.ok ? { ok: true as const } : taken;
      return {
        ok: true,
        replayed: false,
        turnId,
        turn,
        key,
        record,
        outcome,
        data,
        branchCommitted,
        checkpoint: checkpointResult,
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
    // only a throw before the turn started gets here: its open turn, when the lease wrote one, goes too
    if (!done) await withdraw(core, lease, begun.stored, end);
  }
}
