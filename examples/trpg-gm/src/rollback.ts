// Rollback checkpoints (spec §9): a checkpoint after every turn, at most `rollback.max_checkpoints`
// kept (a global setting; 0 disables rollback). Rolling back keeps the present as an undo snapshot;
// undo is allowed until the player sends a new command, which turns the rollback into a new branch.
import type { Checkpoint } from './campaign.js';
import { NO_ROLLBACK } from './campaign.js';
import {
  type BranchSnapshot,
  captureBranch,
  checkpointKey,
  putJson,
  restoreBranch,
  type SessionCore,
  undoKey,
} from './core.js';

export const ROLLBACK_REFUSAL_CODES = ['rollback_disabled', 'no_checkpoint', 'not_earlier'] as const;
export const UNDO_REFUSAL_CODES = ['nothing_to_undo', 'undo_unavailable'] as const;

export type RollbackResult =
  | { readonly ok: true; readonly checkpoint: Checkpoint; readonly from_turn_id: string }
  | { readonly ok: false; readonly code: (typeof ROLLBACK_REFUSAL_CODES)[number]; readonly reason: string };

export type UndoResult =
  | { readonly ok: true; readonly restored_turn_id: string }
  | { readonly ok: false; readonly code: (typeof UNDO_REFUSAL_CODES)[number]; readonly reason: string };

interface UndoRecord {
  readonly branch: BranchSnapshot;
  readonly checkpoints: readonly Checkpoint[];
}

/** Stores a checkpoint of the branch as it is now and drops the oldest beyond `max`. */
export async function takeCheckpoint(core: SessionCore, label: string, max: number): Promise<void> {
  if (max === 0) return;
  const turnId = core.lastTurnId;
  const ref = checkpointKey(core, turnId);
  await putJson(core.store, ref, captureBranch(core));
  const all: Checkpoint[] = [
    ...core.campaign.checkpoints,
    { turn_id: turnId, timestamp: core.clock.now(), label, state_snapshot_ref: ref },
  ];
  const dropped = all.slice(0, Math.max(0, all.length - max));
  for (const checkpoint of dropped) await core.store.delete(checkpoint.state_snapshot_ref);
  core.campaign = { ...core.campaign, checkpoints: all.slice(dropped.length) };
}

/** Restores the checkpoint of `toTurnId`; the present is kept so it can be undone. */
export async function rollbackTo(core: SessionCore, toTurnId: string, max: number): Promise<RollbackResult> {
  if (max === 0) {
    return { ok: false, code: 'rollback_disabled', reason: 'rollback.max_checkpoints is 0: rollback is off' };
  }
  const index = core.campaign.checkpoints.findIndex((checkpoint) => checkpoint.turn_id === toTurnId);
  const checkpoint = core.campaign.checkpoints[index];
  if (checkpoint === undefined) {
    return {
      ok: false,
      code: 'no_checkpoint',
      reason: `There is no checkpoint for ${toTurnId} (kept: ${max})`,
    };
  }
  if (toTurnId === core.lastTurnId) {
    return {
      ok: false,
      code: 'not_earlier',
      reason: `${toTurnId} is the current turn: nothing to roll back`,
    };
  }
  const stored = (await core.store.get(checkpoint.state_snapshot_ref)) as unknown as BranchSnapshot; // written by takeCheckpoint
  const pending = core.campaign.rollback_pending;
  const from = pending.is_pending && pending.from_turn_id !== null ? pending.from_turn_id : core.lastTurnId;
  if (!pending.is_pending) {
    const undo: UndoRecord = { branch: captureBranch(core), checkpoints: core.campaign.checkpoints };
    await putJson(core.store, undoKey(core), undo);
  }
  restoreBranch(core, stored);
  core.campaign = {
    ...core.campaign,
    checkpoints: core.campaign.checkpoints.slice(0, index + 1),
    rollback_pending: { is_pending: true, from_turn_id: from, to_turn_id: toTurnId, can_undo: true },
    updated_at: core.clock.now(),
  };
  return { ok: true, checkpoint, from_turn_id: from };
}

/** Undoes a pending rollback, back to the branch as it was before it. */
export async function undoRollback(core: SessionCore): Promise<UndoResult> {
  const pending = core.campaign.rollback_pending;
  if (!pending.is_pending || !pending.can_undo) {
    return pending.from_turn_id === null
      ? { ok: false, code: 'nothing_to_undo', reason: 'No rollback to undo' }
      : {
          ok: false,
          code: 'undo_unavailable',
          reason: `A new command was sent after rolling back ${pending.from_turn_id} to ${pending.to_turn_id}: that branch is final`,
        };
  }
  const undo = (await core.store.get(undoKey(core))) as unknown as UndoRecord; // written by rollbackTo
  restoreBranch(core, undo.branch);
  await core.store.delete(undoKey(core));
  core.campaign = {
    ...core.campaign,
    checkpoints: undo.checkpoints,
    rollback_pending: NO_ROLLBACK,
    updated_at: core.clock.now(),
  };
  return { ok: true, restored_turn_id: undo.branch.last_turn_id };
}

/** A new command after a rollback: the rollback becomes a branch, the abandoned checkpoints go. */
export async function commitBranch(core: SessionCore): Promise<boolean> {
  const pending = core.campaign.rollback_pending;
  if (!pending.is_pending) return false;
  const undo = (await core.store.get(undoKey(core))) as unknown as UndoRecord | undefined; // written by rollbackTo
  const kept = new Set(core.campaign.checkpoints.map((checkpoint) => checkpoint.state_snapshot_ref));
  for (const checkpoint of undo?.checkpoints ?? []) {
    if (!kept.has(checkpoint.state_snapshot_ref)) await core.store.delete(checkpoint.state_snapshot_ref);
  }
  await core.store.delete(undoKey(core));
  core.campaign = { ...core.campaign, rollback_pending: { ...pending, is_pending: false, can_undo: false } };
  return true;
}
