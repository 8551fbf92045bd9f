// The session's mutable core: everything a turn reads and writes, and the JSON snapshot of the
// current branch that checkpoints store (state, phase machine snapshot, milestone, summary, turn
// log, ledger, disabled tools).
import type { Checkpoints } from '@parley/checkpoints';
import type { Detector, Proposal } from '@parley/conflict';
import type { Clock, IdGenerator, JsonValue, Store } from '@parley/core';
import { type Actor, createActor, type EventOf, type MachineSnapshot } from '@parley/fsm';
import type { Settings, trpgSettings } from '@parley/settings';
import type { DisabledTool, ToolGate } from '@parley/tools';
import type { Campaign, Milestone, SummaryState, TurnLog } from './campaign.js';
import type { GmRequest } from './context.js';
import type { AuthoritativeView } from './detectors.js';
import { type Phase, turnPhase } from './phase.js';
import { createGmGate, type GmToolContext, type GmToolName } from './tools.js';
import type { GameState, WorldAction } from './world.js';

/** Any model client: gets the request of an attempt, returns a proposal (text + tool calls). */
export type GmModel = (request: GmRequest, context?: { readonly signal?: AbortSignal }) => Promise<Proposal>;

/** One executed tool call, as the audit ledger keeps it. */
export interface LedgerEntry {
  readonly turn_id: string;
  readonly call_id: string;
  readonly action: WorldAction;
}

export type PhaseContext = { readonly combats: number };
export type PhaseActor = Actor<Phase, EventOf<typeof turnPhase>, PhaseContext>;

export interface SessionCore {
  readonly clock: Clock;
  readonly store: Store;
  readonly settings: Settings<typeof trpgSettings>;
  readonly model: GmModel;
  readonly nextTurnId: IdGenerator;
  readonly detectors: readonly Detector<AuthoritativeView>[];
  /** The branch's checkpoints in the Store (@parley/checkpoints). */
  readonly checkpoints: Checkpoints<BranchSnapshot>;
  campaign: Campaign;
  state: GameState;
  actor: PhaseActor;
  gate: ToolGate<GmToolName, GmToolContext>;
  summary: SummaryState;
  summaryVersion: number;
  turnLog: TurnLog[];
  ledger: LedgerEntry[];
  /** The number of the latest turn in this branch (0 before the first). */
  turn: number;
  lastTurnId: string;
}

/** The checkpointed part of a session, as plain JSON. */
export interface BranchSnapshot {
  readonly state: GameState;
  readonly phase: MachineSnapshot<Phase, PhaseContext>;
  readonly milestone: Milestone;
  readonly summary: SummaryState;
  readonly summary_version: number;
  readonly summary_state_id: string;
  readonly turn_log: readonly TurnLog[];
  readonly ledger: readonly LedgerEntry[];
  readonly turn: number;
  readonly last_turn_id: string;
  readonly disabled: readonly DisabledTool[];
}

export const START_TURN_ID = 'turn_0';

export function captureBranch(core: SessionCore): BranchSnapshot {
  return structuredClone({
    state: core.state,
    phase: core.actor.snapshot(),
    milestone: core.campaign.milestone,
    summary: core.summary,
    summary_version: core.summaryVersion,
    summary_state_id: core.campaign.state_refs.summary_state_id,
    turn_log: core.turnLog,
    ledger: core.ledger,
    turn: core.turn,
    last_turn_id: core.lastTurnId,
    disabled: core.gate.disabled(),
  });
}

/** Puts a branch back: new phase actor and a new gate (a new branch forgets executed call ids). */
export function restoreBranch(core: SessionCore, snapshot: BranchSnapshot): void {
  const copy = structuredClone(snapshot);
  core.actor.close();
  core.actor = createActor(turnPhase, { clock: core.clock, snapshot: copy.phase });
  core.gate = createGmGate(copy.disabled, core.clock);
  core.state = copy.state;
  core.summary = copy.summary;
  core.summaryVersion = copy.summary_version;
  core.turnLog = [...copy.turn_log];
  core.ledger = [...copy.ledger];
  core.turn = copy.turn;
  core.lastTurnId = copy.last_turn_id;
  core.campaign = {
    ...core.campaign,
    milestone: copy.milestone,
    state_refs: { ...core.campaign.state_refs, summary_state_id: copy.summary_state_id },
  };
}

/** Stores a value that is plain JSON by construction (structuredClone of JSON-shaped records). */
export async function putJson(store: Store, key: string, value: unknown): Promise<void> {
  await store.set(key, value as JsonValue); // every record here is built from JSON values only
}

/** The read-only view every detector and the gate's callers see. */
export function viewOf(core: SessionCore): AuthoritativeView {
  return {
    ...core.state,
    goal: core.campaign.goal,
    party_character_ids: core.campaign.selected.party_character_ids,
  };
}
