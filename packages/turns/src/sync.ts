// What a runner does besides running turns: reading and writing its head, putting a kept state
// back, and catching up on writes a dead (or failing) process missed — the journal entry of the
// last settled submission, the checkpoint of the committed turn, a head behind a rollback or undo.
import type { CheckpointLog, Checkpoints, Restored } from '@parley/checkpoints';
import type { Clock, Emitter, JsonValue, Store } from '@parley/core';
import type { ToolGate } from '@parley/tools';
import { TurnsError } from './errors.js';
import {
  type Head,
  journalValue,
  readHead,
  readSettled,
  type SettledTurn,
  type StoredHead,
  toJson,
} from './head.js';
import type { TurnCheckpoint, TurnCheckpointResult, TurnRunnerEvents } from './types.js';

/** The pieces of a runner its parts share. @internal */
export interface RunnerCore<TState> {
  readonly store: Store;
  readonly clock: Clock;
  readonly headKey: string;
  readonly journalTtlMs: number;
  readonly keyOf: (key: string) => string;
  readonly checkpoints: Checkpoints<TurnCheckpoint<TState>>;
  readonly gate: ToolGate<string, unknown>;
  readonly capture: () => TState;
  readonly restore: (state: TState) => void | Promise<void>;
  readonly onLog: ((log: CheckpointLog) => void) | undefined;
  readonly events: Emitter<TurnRunnerEvents>;
  /** Writes this process still owes: set when one failed, cleared once done. */
  readonly behind: { journal: boolean; checkpoint: boolean };
  /** Submission keys of turns running in this process. */
  readonly running: Set<string>;
}

export async function loadHead<TState>(core: RunnerCore<TState>): Promise<StoredHead> {
  const stored = await readHead(core.store, core.headKey);
  if (stored === undefined) throw new TurnsError('not_opened', 'The runner has no head: call open() first');
  return stored;
}

/** The present of a head, as a checkpoint keeps it. */
export function presentOf<TState>(head: Head): TurnCheckpoint<TState> {
  // the head's state is what `capture` returned (plain JSON), written by this package
  return { turn: head.turn, turnId: head.turnId, state: head.state as TState, gate: head.gate };
}

/**
 * The host's present as a checkpoint keeps it: a copy of its state, the gate's disabled tools and
 * the gate's memory of this turn only (turn numbers only grow within a branch, so the call ids of
 * earlier turns never come back, and a rollback restores the memory of its own checkpoint).
 */
export function presentNow<TState>(
  core: RunnerCore<TState>,
  turn: number,
  turnId: string,
): TurnCheckpoint<TState> {
  const gate = core.gate.snapshot();
  return {
    turn,
    turnId,
    state: structuredClone(core.capture()),
    gate: { ...gate, turns: gate.turns.filter((remembered) => remembered.turn >= turn) },
  };
}

/** Puts a kept present back into the gate and the host. */
export async function putBack<TState>(core: RunnerCore<TState>, kept: TurnCheckpoint<TState>): Promise<void> {
  core.gate.restore(kept.gate);
  await core.restore(kept.state);
}

/** Replaces the head's present (the open turn and last submission stay) with compare-and-set. */
export async function writePresent<TState>(
  core: RunnerCore<TState>,
  stored: StoredHead,
  present: TurnCheckpoint<TState>,
): Promise<StoredHead> {
  const head: Head = { ...stored.head, ...present, state: present.state as unknown as JsonValue };
  const written = await core.store.compareAndSet(core.headKey, stored.version, toJson(head));
  if (!written.ok) {
    throw new TurnsError('conflict', `${core.headKey} moved while the checkpoints moved`, {
      details: { key: core.headKey, version: written.version },
    });
  }
  return { head, version: written.version };
}

/** Takes the checkpoint of a committed present; `disabled` counts as done. */
export async function checkpoint<TState>(
  core: RunnerCore<TState>,
  present: TurnCheckpoint<TState>,
  label: string,
): Promise<TurnCheckpointResult> {
  try {
    const taken = await core.checkpoints.take(present.turnId, present, { label });
    if (taken.ok) core.onLog?.(taken.log);
    core.behind.checkpoint = !taken.ok && taken.code !== 'disabled';
    if (taken.ok) return { ok: true };
    if (core.behind.checkpoint) {
      core.events.emit('checkpoint-failed', {
        turnId: present.turnId,
        code: taken.code,
        reason: taken.reason,
      });
    }
    return { ok: false, code: taken.code, reason: taken.reason };
  } catch (err) {
    core.behind.checkpoint = true;
    const reason = String(err);
    core.events.emit('checkpoint-failed', { turnId: present.turnId, code: 'failed', reason });
    return { ok: false, code: 'failed', reason };
  }
}

/** Whether the head's open turn still holds the runner (running here, or before its deadline). */
export function isLive<TState>(core: RunnerCore<TState>, head: Head): boolean {
  return head.open !== null && (core.running.has(head.open.key) || core.clock.now() < head.open.deadlineAt);
}

/** Drops a turn a dead process left open (nothing of it was committed); `undefined`: lost the race. */
export async function abandon<TState>(
  core: RunnerCore<TState>,
  stored: StoredHead,
  turnId: string,
): Promise<StoredHead | undefined> {
  const head: Head = { ...stored.head, open: null };
  const cleared = await core.store.compareAndSet(core.headKey, stored.version, toJson(head));
  if (!cleared.ok) return undefined;
  core.events.emit('recovered', { turnId, action: 'abandoned' });
  return { head, version: cleared.version };
}

/** Writes the journal entry of the head's last submission; a failure leaves it owed. */
export async function journal<TState>(core: RunnerCore<TState>, last: SettledTurn): Promise<void> {
  try {
    await core.store.set(core.keyOf(last.key), journalValue(last), { ttlMs: core.journalTtlMs });
    core.behind.journal = false;
  } catch {
    core.behind.journal = true;
  }
}

/**
 * Catches up on owed writes (all of them when `all`: after a restart nothing is known): the last
 * submission's journal entry, and the checkpoint log against the head. Returns the head, which
 * follows the log when a rollback or undo moved the log but not the head.
 */
export async function catchUp<TState>(
  core: RunnerCore<TState>,
  stored: StoredHead,
  all: boolean,
  label: (turn: number) => string,
): Promise<StoredHead> {
  const { head } = stored;
  if ((all || core.behind.journal) && head.last?.keyed === true) {
    const kept = await readSettled(core.store, core.keyOf(head.last.key));
    if (kept?.turnId !== head.last.turnId) {
      await journal(core, head.last);
      core.events.emit('recovered', { turnId: head.last.turnId, action: 'journal' });
    }
  }
  if (!all && !core.behind.checkpoint) return stored;
  const log = await core.checkpoints.log();
  if (!log.ok) return stored;
  const latest = log.checkpoints.at(-1);
  if (latest === undefined || latest.id === head.turnId) {
    if (latest === undefined) await checkpoint(core, presentOf(head), label(head.turn));
    else core.behind.checkpoint = false;
    return stored;
  }
  const inLog = log.checkpoints.some((c) => c.id === head.turnId);
  const rolledFrom = log.rollback?.canUndo === true && log.rollback.fromId === head.turnId;
  if (!inLog && !rolledFrom) {
    const taken = await checkpoint(core, presentOf<TState>(head), label(head.turn));
    if (taken.ok) core.events.emit('recovered', { turnId: head.turnId, action: 'checkpoint' });
    return stored;
  }
  // a rollback or undo moved the log, and the process died before the head followed
  const loaded = await core.checkpoints.load(latest.id);
  if (!loaded.ok) return stored;
  const next = await writePresent(core, stored, loaded.state);
  await putBack(core, loaded.state);
  core.behind.checkpoint = false;
  core.events.emit('recovered', { turnId: latest.id, action: 'head' });
  return next;
}

/**
 * Releases the lease of a failed turn and puts back the present from before it (or the stored one,
 * when the turn was committed after all or another writer moved the head); false: the store failed.
 */
export async function release<TState>(
  core: RunnerCore<TState>,
  turnId: string,
  before: TurnCheckpoint<TState>,
): Promise<boolean> {
  try {
    const stored = await loadHead(core);
    const ours = stored.head.open?.turnId === turnId;
    if (ours) await abandon(core, stored, turnId);
    await putBack(core, ours ? before : presentOf<TState>(stored.head));
    return true;
  } catch {
    return false;
  }
}

/** The `turn_failed` error of a turn that threw, reported as an event first. */
export function failure<TState>(
  core: RunnerCore<TState>,
  turnId: string,
  key: string,
  err: unknown,
): TurnsError {
  const message = err instanceof Error ? err.message : String(err);
  core.events.emit('failed', { turnId, key, message });
  return new TurnsError('turn_failed', `Turn ${turnId} failed: ${message}`, {
    cause: err,
    details: { turnId, key },
  });
}

/** After a rollback or undo moved the log: the head and the host follow it. */
export async function follow<TState>(
  core: RunnerCore<TState>,
  stored: StoredHead,
  moved: Restored<TurnCheckpoint<TState>>,
): Promise<Restored<TurnCheckpoint<TState>>> {
  if (!moved.ok) return moved;
  await writePresent(core, stored, moved.state);
  await putBack(core, moved.state);
  core.onLog?.(moved.log);
  return moved;
}
