// The session's mutable core, and what its checkpoints (spec §9) keep. The turn runner of
// @parley/turns commits the branch after every turn and takes one JSON checkpoint of it in the
// Store (with the tool gate's memory); a rollback puts an earlier one back and can be undone until
// the next command. This file only says what a branch is and maps the log onto §9 fields.
import type { CheckpointLog } from '@parley/checkpoints';
import type { Detector, Proposal } from '@parley/conflict';
import type { Clock, Store } from '@parley/core';
import { type Actor, createActor, type EventOf, type MachineSnapshot } from '@parley/fsm';
import type { Settings } from '@parley/settings';
import type { ToolGate } from '@parley/tools';
import { type Campaign, NO_ROLLBACK, type SummaryState, type TurnLog } from './campaign.js';
import type { GmRequest } from './context.js';
import type { trpgSettings } from './settings.js';
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

/** What a checkpoint holds of the session (the runner adds the turn and the gate's snapshot). */
interface Branch {
  state: GameState;
  summary: SummaryState;
  summaryVersion: number;
  turnLog: TurnLog[];
  ledger: LedgerEntry[];
}

export interface BranchSnapshot extends Readonly<Branch> {
  readonly phase: MachineSnapshot<Phase, { readonly combats: number }>;
  readonly campaign: Pick<Campaign, 'milestone' | 'state_refs'>;
}

export interface SessionCore extends Branch {
  readonly clock: Clock;
  readonly store: Store;
  readonly settings: Settings<typeof trpgSettings>;
  readonly model: GmModel;
  readonly detectors: readonly Detector<AuthoritativeView>[];
  readonly gate: ToolGate<GmToolName, GmToolContext>;
  campaign: Campaign;
  actor: Actor<Phase, EventOf<typeof turnPhase>, { readonly combats: number }>;
}

/** The branch as a checkpoint keeps it (the runner copies it before it is stored). */
export function captureBranch(core: SessionCore): BranchSnapshot {
  const { state, summary, summaryVersion, turnLog, ledger, campaign } = core;
  return {
    ...{ state, summary, summaryVersion, turnLog, ledger },
    campaign: { milestone: campaign.milestone, state_refs: campaign.state_refs },
    phase: core.actor.snapshot(),
  };
}

/** Puts a kept branch back: a new phase actor, the state, summary, turn log and ledger. */
export function restoreBranch(core: SessionCore, snapshot: BranchSnapshot): void {
  const { phase, campaign, ...branch } = structuredClone(snapshot);
  core.actor.close();
  core.actor = createActor(turnPhase, { clock: core.clock, snapshot: phase });
  Object.assign(core, branch);
  core.campaign = { ...core.campaign, ...campaign };
}

/** The campaign's `checkpoints[]` and `rollback_pending` (spec §9 names) from the stored log. */
export function mirrorLog(core: SessionCore, { checkpoints: kept, rollback }: CheckpointLog): void {
  core.campaign = {
    ...core.campaign,
    checkpoints: kept.map((c) => ({
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
