// Rollback (spec §9) on @parley/checkpoints: a checkpoint of the branch after every turn, at most
// `rollback.max_checkpoints` (a global setting, read at every take and rollback; 0 disables).
// Rolling back keeps the present so it can be undone until the next command, which commits the
// rollback as a new branch. The package keeps the log in the Store; this file maps it onto the
// campaign's §9 fields and puts the restored branch back.
import type { CheckpointLog, CheckpointRefusal } from '@parley/checkpoints';
import type { Checkpoint, RollbackPending } from './campaign.js';
import { NO_ROLLBACK } from './campaign.js';
import { captureBranch, restoreBranch, type SessionCore } from './core.js';

export type RollbackResult =
  | { readonly ok: true; readonly checkpoint: Checkpoint; readonly from_turn_id: string }
  | CheckpointRefusal;

export type UndoResult = { readonly ok: true; readonly restored_turn_id: string } | CheckpointRefusal;

/** Stores a checkpoint of the branch as it is now (nothing when rollback is off). */
export async function takeCheckpoint(core: SessionCore, label: string): Promise<void> {
  const taken = await core.checkpoints.take(core.lastTurnId, captureBranch(core), { label });
  if (taken.ok) sync(core, taken.log);
}

/** Restores the checkpoint of `toTurnId`; the present is kept so it can be undone. */
export async function rollbackTo(core: SessionCore, toTurnId: string): Promise<RollbackResult> {
  const back = await core.checkpoints.rollback(toTurnId, captureBranch(core));
  if (!back.ok) return back;
  restoreBranch(core, back.state);
  sync(core, back.log);
  const checkpoint = core.campaign.checkpoints[core.campaign.checkpoints.length - 1] as Checkpoint;
  return { ok: true, checkpoint, from_turn_id: back.log.rollback?.fromId ?? toTurnId };
}

/** Undoes a pending rollback, back to the branch as it was before it. */
export async function undoRollback(core: SessionCore): Promise<UndoResult> {
  const undone = await core.checkpoints.undo();
  if (!undone.ok) return undone;
  restoreBranch(core, undone.state);
  sync(core, undone.log);
  return { ok: true, restored_turn_id: undone.id };
}

/** A new command after a rollback: the rollback becomes a branch, the abandoned checkpoints go. */
export async function commitBranch(core: SessionCore): Promise<boolean> {
  const commit = await core.checkpoints.commit();
  if (commit.ok && commit.committed) sync(core, commit.log);
  return commit.ok && commit.committed;
}

/** The campaign's `checkpoints[]` and `rollback_pending` (spec §9 names) from the stored log. */
function sync(core: SessionCore, log: CheckpointLog): void {
  const checkpoints = log.checkpoints.map((c) => ({
    turn_id: c.id,
    timestamp: c.at,
    label: c.label,
    state_snapshot_ref: c.ref,
  }));
  const rollback = log.rollback;
  const rollback_pending: RollbackPending =
    rollback === null
      ? NO_ROLLBACK
      : {
          is_pending: rollback.canUndo,
          from_turn_id: rollback.fromId,
          to_turn_id: rollback.toId,
          can_undo: rollback.canUndo,
        };
  core.campaign = { ...core.campaign, checkpoints, rollback_pending, updated_at: core.clock.now() };
}
