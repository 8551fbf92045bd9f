// The session's mutable core, and its checkpoints (spec §9) on @parley/checkpoints: after every turn
// the branch — state, phase and tool gate snapshots, milestone, summary, turn log, ledger — is one
// JSON checkpoint in the Store; a rollback puts an earlier one back and can be undone until the next
// command. This file only says what a branch is and maps the package's log onto the §9 fields.
import type { CheckpointLog, CheckpointRefusal, Checkpoints } from '@parley/checkpoints';
import type { Detector, Proposal } from '@parley/conflict';
import type { Clock, IdGenerator, Store } from '@parley/core';
import { type Actor, createActor, type EventOf, type MachineSnapshot } from '@parley/fsm';
import type { Settings, trpgSettings } from '@parley/settings';
import type { ToolGate, ToolGateSnapshot } from '@parley/tools';
import { type Campaign, NO_ROLLBACK, type SummaryState, type TurnLog } from './campaign.js';
import type { GmRequest } from './context.js';
import type { AuthoritativeView } from './detectors.js';
import { type Phase, turnPhase } from './phase.js';
import type { GmToolContext, GmToolName } from './tools.js';
import type { GameState, WorldAction } from './world.js';

/** Any model client: gets the request of an attempt, returns a proposal (text + tool calls). */
export type GmModel = (request: GmRequest, context?: { readonly signal?: AbortSignal }) => Promise<Proposal>;

/** One executed tool call, as the audit ledger keeps it. */
export interface LedgerEntry {
  readonly turn_id: string;
  readonly call_id: string;
  readonly action: WorldAction;
}

/** What a checkpoint holds besides the phase and gate snapshots. */
interface Branch {
  state: GameState;
  summary: SummaryState;
  summaryVersion: number;
  turnLog: TurnLog[];
  ledger: LedgerEntry[];
  /** The number of the latest turn in this branch (0 before the first). */
  turn: number;
  lastTurnId: string;
}

export interface BranchSnapshot extends Readonly<Branch> {
  readonly phase: MachineSnapshot<Phase, { readonly combats: number }>;
  readonly gate: ToolGateSnapshot;
  readonly campaign: Pick<Campaign, 'milestone' | 'state_refs'>;
}

export interface SessionCore extends Branch {
  readonly clock: Clock;
  readonly store: Store;
  readonly settings: Settings<typeof trpgSettings>;
  readonly model: GmModel;
  readonly nextTurnId: IdGenerator;
  readonly detectors: readonly Detector<AuthoritativeView>[];
  readonly checkpoints: Checkpoints<BranchSnapshot>;
  readonly gate: ToolGate<GmToolName, GmToolContext>;
  campaign: Campaign;
  actor: Actor<Phase, EventOf<typeof turnPhase>, { readonly combats: number }>;
}

export type RollbackResult = { readonly ok: true; readonly from_turn_id: string } | CheckpointRefusal;
export type UndoResult = { readonly ok: true; readonly restored_turn_id: string } | CheckpointRefusal;

function capture(core: SessionCore): BranchSnapshot {
  const { state, summary, summaryVersion, turnLog, ledger, turn, lastTurnId, campaign } = core;
  return structuredClone({
    ...{ state, summary, summaryVersion, turnLog, ledger, turn, lastTurnId },
    campaign: { milestone: campaign.milestone, state_refs: campaign.state_refs },
    phase: core.actor.snapshot(),
    gate: core.gate.snapshot(),
  });
}

/** Puts a branch back: a new phase actor, the gate's memory and disabled tools as they were. */
function restore(core: SessionCore, snapshot: BranchSnapshot, log: CheckpointLog): void {
  const { phase, gate, campaign, ...branch } = structuredClone(snapshot);
  core.actor.close();
  core.actor = createActor(turnPhase, { clock: core.clock, snapshot: phase });
  core.gate.restore(gate);
  Object.assign(core, branch);
  core.campaign = { ...core.campaign, ...campaign };
  sync(core, log);
}

/** Stores a checkpoint of the branch as it is now (nothing when rollback is off). */
export async function takeCheckpoint(core: SessionCore, label: string): Promise<void> {
  const taken = await core.checkpoints.take(core.lastTurnId, capture(core), { label });
  if (taken.ok) sync(core, taken.log);
}

/** Restores the checkpoint of `toTurnId`; the present is kept so it can be undone. */
export async function rollbackTo(core: SessionCore, toTurnId: string): Promise<RollbackResult> {
  const back = await core.checkpoints.rollback(toTurnId, capture(core));
  if (!back.ok) return back;
  restore(core, back.state, back.log);
  return { ok: true, from_turn_id: back.log.rollback?.fromId ?? toTurnId };
}

/** Undoes a pending rollback, back to the branch as it was before it. */
export async function undoRollback(core: SessionCore): Promise<UndoResult> {
  const undone = await core.checkpoints.undo();
  if (!undone.ok) return undone;
  restore(core, undone.state, undone.log);
  return { ok: true, restored_turn_id: undone.id };
}

/** A new command after a rollback: the rollback becomes a branch, the abandoned checkpoints go. */
export async function commitBranch(core: SessionCore): Promise<boolean> {
  const commit = await core.checkpoints.commit();
  if (commit.ok && commit.committed) sync(core, commit.log);
  return commit.ok && commit.committed;
}

/** The campaign's `checkpoints[]` and `rollback_pending` (spec §9 names) from the stored log. */
function sync(core: SessionCore, { checkpoints, rollback }: CheckpointLog): void {
  core.campaign = {
    ...core.campaign,
    checkpoints: checkpoints.map((c) => ({
      turn_id: c.id,
      timestamp: c.at,
      label: c.label,
      state_snapshot_ref: c.ref,
    })),
    rollback_pending:
      rollback === null
        ? NO_ROLLBACK
        : {
            is_pending: rollback.canUndo,
            from_turn_id: rollback.fromId,
            to_turn_id: rollback.toId,
            can_undo: rollback.canUndo,
          },
    updated_at: core.clock.now(),
  };
}

/** The read-only view every detector and the gate's callers see. */
export function viewOf(core: SessionCore): AuthoritativeView {
  const { goal, selected } = core.campaign;
  return { ...core.state, goal, party_character_ids: selected.party_character_ids };
}
