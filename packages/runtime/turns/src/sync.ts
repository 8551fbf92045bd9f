// What a runner does besides running turns: reading and writing its head through the kernel,
// putting a kept state back, and catching up on what a dead (or failing) process missed — the
// checkpoint of the committed turn, a head behind a rollback or undo.
import type { CheckpointLog, Checkpoints } from '@parley/checkpoints';
import {
  copyWith,
  type ApplyResult,
  type Clock,
  type Emitter,
  isParleyError,
  type JsonValue,
  type Kernel,
  type KernelRefusal,
  type Lease,
} from '@parley/core';
import type { ToolGate } from '@parley/tools';
import { copyOf } from './copy.js';
import { TurnsError } from './errors.js';
import { HEAD, type Head, type StoredHead } from './head.js';
import type { TurnCheckpoint, TurnCheckpointResult, TurnRunnerEvents } from './types.js';

/** The pieces of a runner its parts share. @internal */
export interface RunnerCore<TState> {
  readonly kernel: Kernel;
  readonly clock: Clock;
  readonly headKey: string;
  readonly journalTtlMs: number;
  readonly turnTimeoutMs: number;
  readonly checkpoints: Checkpoints<TurnCheckpoint<TState>>;
  readonly gate: ToolGate<string, unknown>;
  readonly capture: () => TState;
  readonly restore: (state: TState) => void | Promise<void>;
  readonly onLog: ((log: CheckpointLog) => void) | undefined;
  readonly events: Emitter<TurnRunnerEvents>;
  /** Writes this process still owes: set when one failed, cleared once done. */
  readonly behind: { checkpoint: boolean };
  /** The head (its turn id) the host's in-memory state was last put back to or committed from. */
  readonly synced: { turnId: string | undefined };
  /**
   * The head this runner's last turn committed (its lease given back in the same write): the next
   * lease (turn, rollback or undo) is taken on it without a read, or on a fresh read when the store
   * moved on since. Used once; set again only by a turn's commit.
   */
  readonly committed: { head: StoredHead | undefined };
}

/** The stored head, or `undefined` before `open` wrote one. @throws TurnsError `corrupt_record`, `record_version`. */
export async function readHead<TState>(core: RunnerCore<TState>): Promise<StoredHead | undefined> {
  try {
    return await core.kernel.read(core.headKey, HEAD);
  } catch (err) {
    const code = isParleyError(err, 'record_version')
      ? 'record_version'
      : isParleyError(err, 'corrupt_record')
        ? 'corrupt_record'
        : 'store_failed';
    throw new TurnsError(code, `${core.headKey}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
      details: { key: core.headKey },
    });
  }
}

export async function loadHead<TState>(core: RunnerCore<TState>): Promise<StoredHead> {
  const stored = await readHead(core);
  if (stored === undefined) throw new TurnsError('not_opened', 'The runner has no head: call open() first');
  return stored;
}

/** A kernel refusal the runner cannot turn into a refusal of its own. */
export function kernelFailure(refused: KernelRefusal): TurnsError {
  const code =
    refused.code === 'corrupt_record' || refused.code === 'record_version' ? refused.code : 'store_failed';
  return new TurnsError(code, refused.message, { details: { key: refused.key, kernel: refused.code } });
}

/** The head a write committed; a refusal or a deleted head is a TurnsError. */
export function headOf(result: ApplyResult<Head, unknown>, key: string): StoredHead {
  if (result.ok && result.committed !== undefined) return result.committed;
  throw kernelFailure(
    result.ok ? { ok: false, code: 'corrupt_record', message: `${key} was deleted`, key } : result,
  );
}

/** The present of a head, as a checkpoint keeps it. */
export function presentOf<TState>(head: Head): TurnCheckpoint<TState> {
  // the head's state is what `capture` returned (plain JSON), written by this package
  return { turn: head.turn, turnId: head.turnId, state: head.state as TState, gate: head.gate };
}

/**
 * The host's present as a checkpoint keeps it: a copy of its state and the gate's disabled tools,
 * with no remembered call. A turn's call ids are asked for only while it runs: a later turn has a
 * higher number, the turn after a rollback starts from a checkpoint that never held its calls (the
 * abandoned branch's calls are forgotten, as before), and a turn that died runs again from a head
 * its calls never reached. Not copying the gate's memory is a large part of what a tool call costs.
 */
export function presentNow<TState>(
  core: RunnerCore<TState>,
  turn: number,
  turnId: string,
): TurnCheckpoint<TState> {
  // the gate's own list of what is disabled now (a disable whose time passed is over), copied
  const disabled = core.gate
    .disabled()
    .map(({ tool, until, reason }) => ({ tool, until: { ...until }, reason }));
  return { turn, turnId, state: copyOf(core.capture()), gate: { version: 1, turns: [], disabled } };
}

/** Puts a kept present back into the gate and the host. */
export async function putBack<TState>(core: RunnerCore<TState>, kept: TurnCheckpoint<TState>): Promise<void> {
  core.synced.turnId = undefined; // until the host has it all
  core.gate.restore(kept.gate);
  await core.restore(kept.state);
  core.synced.turnId = kept.turnId;
}

/**
 * The present a change starts from: the committed head, with the host's own changes since it last
 * had that head (host events, a disabled tool) when it still has it; a head another process moved
 * replaces the host's copy.
 */
export function presentFor<TState>(core: RunnerCore<TState>, head: Head): TurnCheckpoint<TState> {
  return head.turnId === core.synced.turnId
    ? presentNow(core, head.turn, head.turnId)
    : presentOf<TState>(head);
}

/** Replaces the head's present (under `lease`, ending it when `release`); throws `conflict` when refused. */
export async function writePresent<TState>(
  core: RunnerCore<TState>,
  present: TurnCheckpoint<TState>,
  lease: Lease | undefined,
  release: boolean,
): Promise<StoredHead> {
  const state = present.state as unknown as JsonValue; // what `capture` returned: plain JSON
  const written = await core.kernel.apply(
    core.headKey,
    HEAD,
    (head: Head | undefined) => ({
      value: head && copyWith(head, copyWith(present, { state })),
      effects: [],
    }),
    null,
    lease === undefined ? {} : { lease, release },
  );
  if (!written.ok || written.committed === undefined) {
    throw new TurnsError('conflict', `${core.headKey} could not follow the checkpoints`, {
      details: { key: core.headKey, kernel: written.ok ? 'deleted' : written.code },
    });
  }
  return written.committed;
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
        message: taken.message,
        reason: taken.message,
      });
    }
    return { ok: false, code: taken.code, message: taken.message, reason: taken.message };
  } catch (err) {
    core.behind.checkpoint = true;
    const message = String(err);
    core.events.emit('checkpoint-failed', {
      turnId: present.turnId,
      code: 'failed',
      message,
      reason: message,
    });
    return { ok: false, code: 'failed', message, reason: message };
  }
}

/** Whether the head's lease (a running turn, rollback or undo) is valid now. */
export function isLive<TState>(core: RunnerCore<TState>, stored: StoredHead): boolean {
  return stored.lease !== null && core.clock.now() < stored.lease.expiresAt;
}

/**
 * Catches up on owed checkpoint writes (all when `all`: after a restart nothing is known): the
 * checkpoint of the head, or the head following the log when a rollback or undo moved the log but
 * not the head. Writes the head only under `lease`.
 */
export async function catchUp<TState>(
  core: RunnerCore<TState>,
  stored: StoredHead,
  lease: Lease | undefined,
  all: boolean,
  label: (turn: number) => string,
): Promise<StoredHead> {
  const head = stored.value;
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
  if (!loaded.ok || lease === undefined) return stored;
  const next = await writePresent(core, loaded.state, lease, false);
  core.behind.checkpoint = false;
  core.events.emit('recovered', { turnId: latest.id, action: 'head' });
  return next;
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
