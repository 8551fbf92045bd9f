// The session's mutable core, and its checkpoints (spec §9) on @parley/checkpoints: after every turn
// the branch — state, phase and tool gate snapshots, milestone, summary, turn log, ledger — is one
// JSON checkpoint in the Store; a rollback puts an earlier one back and can be undone until the next
// command (`bindCheckpoints`). This file only says what a branch is and maps the log onto §9 fields.
import { type BoundCheckpoints, bindCheckpoints, type Checkpoints } from '@parley/checkpoints';
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
  /** Set right after the core is built (they capture and restore it). */
  checkpoints: BoundCheckpoints<BranchSnapshot>;
  readonly gate: ToolGate<GmToolName, GmToolContext>;
  campaign: Campaign;
  actor: Actor<Phase, EventOf<typeof turnPhase>, { readonly combats: number }>;
}

/** The session's checkpoints, bound to its branch: the campaign's §9 fields follow every change. */
export function bindBranch(
  core: SessionCore,
  checkpoints: Checkpoints<BranchSnapshot>,
): BoundCheckpoints<BranchSnapshot> {
  return bindCheckpoints({
    checkpoints,
    capture: () => {
      const { state, summary, summaryVersion, turnLog, ledger, turn, lastTurnId, campaign } = core;
      return structuredClone({
        ...{ state, summary, summaryVersion, turnLog, ledger, turn, lastTurnId },
        campaign: { milestone: campaign.milestone, state_refs: campaign.state_refs },
        phase: core.actor.snapshot(),
        gate: core.gate.snapshot(),
      });
    },
    // a new phase actor, the gate's memory and disabled tools as they were
    restore: (snapshot) => {
      const { phase, gate, campaign, ...branch } = structuredClone(snapshot);
      core.actor.close();
      core.actor = createActor(turnPhase, { clock: core.clock, snapshot: phase });
      core.gate.restore(gate);
      Object.assign(core, branch);
      core.campaign = { ...core.campaign, ...campaign };
    },
    // the campaign's `checkpoints[]` and `rollback_pending` (spec §9 names) from the stored log
    onLog: ({ checkpoints: kept, rollback }) => {
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
    },
  });
}

/** The read-only view every detector and the gate's callers see. */
export function viewOf(core: SessionCore): AuthoritativeView {
  const { goal, selected } = core.campaign;
  return { ...core.state, goal, party_character_ids: selected.party_character_ids };
}
