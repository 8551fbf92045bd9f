// The GM session: the host object a bot wires to its chat. It owns the authoritative state and
// exposes the player's and the host's commands: play a turn, pick the dialog type, change a setting,
// host events (combat starts / ends), disable a tool until a turn, roll back, undo. Turns, rollback
// and undo run on @parley/turns' runner; this file wires it to the session's state and settings.
import type { CheckpointRefusal } from '@parley/checkpoints';
import { type Clock, createMemoryStore, type IdGenerator, type Store } from '@parley/core';
import { createActor, type SendResult } from '@parley/fsm';
import { createSettings, GLOBAL, type Settings, type SettingsResult } from '@parley/settings';
import type { DisableUntil } from '@parley/tools';
import { createTurnRunner, type TurnRefusal } from '@parley/turns';
import type { AdvancePolicy, Campaign, DialogType, SummaryState, TurnLog } from './campaign.js';
import { trpgSettings } from './settings.js';
import { trpgConflictPolicy } from './settings-policy.js';
import {
  captureBranch,
  type GmModel,
  type LedgerEntry,
  mirrorLog,
  restoreBranch,
  type SessionCore,
} from './core.js';
import { createGmDetectors } from './detectors.js';
import { CAMPAIGN_ID, createGoalModel, initialCampaign, initialGameState } from './fixtures.js';
import { establishGoal, type GoalModel, setGoalHidden } from './goal.js';
import { type Phase, turnPhase } from './phase.js';
import { INITIAL_SUMMARY } from './summary.js';
import { createGmGate, type GmToolName } from './tools.js';
import {
  acceptTurn,
  completeTurn,
  prepareTurn,
  type TurnInput,
  type TurnResult,
  toTurnResult,
} from './turn.js';
import type { GameState } from './world.js';

export interface GmSessionOptions {
  readonly clock: Clock;
  readonly model: GmModel;
  /** Turn ids (unique across branches); `turn_<nanoid>` by default. */
  readonly generateTurnId?: IdGenerator;
  /** Where checkpoints, summaries and the world state are stored; in memory by default. */
  readonly store?: Store;
  /** The settings service; a new one over `store` with `trpgSettings` by default. */
  readonly settings?: Settings<typeof trpgSettings>;
  /** K, written as the campaign setting `conflict.max_retries` (2 by default). */
  readonly maxRetries?: number;
  readonly advancePolicy?: AdvancePolicy;
  readonly dialogType?: DialogType;
  /** `rollback.max_checkpoints` (a global setting); 5 by default. */
  readonly maxCheckpoints?: number;
  /**
   * Writes the ultimate goal from the world background, the map and the characters' backgrounds
   * (spec §8.1), once per campaign; a scripted model answering the fixture's proposal by default.
   */
  readonly goalModel?: GoalModel;
  /** Whether the goal starts hidden from the players; true by default. */
  readonly goalHidden?: boolean;
}

export interface GmSession {
  readonly campaign: Campaign;
  readonly state: GameState;
  readonly phase: Phase;
  readonly turnLog: readonly TurnLog[];
  readonly summary: SummaryState;
  /** Every executed tool call of the current branch, oldest first. */
  readonly ledger: readonly LedgerEntry[];
  readonly settings: Settings<typeof trpgSettings>;
  readonly store: Store;
  /** Plays a turn; with a chat `messageId`, a message delivered twice is played once. */
  turn(input: TurnInput, options?: { readonly messageId?: string }): Promise<TurnResult>;
  /** The player picks the dialog type by hand (spec §5.1); the next turn's snapshot shows it. */
  selectDialogType(type: string): Promise<SettingsResult<typeof trpgSettings>>;
  /** A player or the host changes a campaign setting; untrusted input is refused as data. */
  changeSetting(key: string, value: unknown): Promise<SettingsResult<typeof trpgSettings>>;
  hostEvent(event: 'start_combat' | 'end_combat'): SendResult<Phase>;
  /** Hides the ultimate goal from the players or shows it; its text never changes. */
  setGoalHidden(hidden: boolean): Promise<Campaign['goal']>;
  disableTool(tool: GmToolName, until: DisableUntil, reason: string): void;
  rollback(
    toTurnId: string,
  ): Promise<{ readonly ok: true; readonly from_turn_id: string } | CheckpointRefusal | TurnRefusal>;
  undo(): Promise<{ readonly ok: true; readonly restored_turn_id: string } | CheckpointRefusal | TurnRefusal>;
  close(): Promise<void>;
}

export async function createGmSession(options: GmSessionOptions): Promise<GmSession> {
  const { clock } = options;
  const store = options.store ?? createMemoryStore({ clock });
  const settings =
    options.settings ?? createSettings(trpgSettings, { store, clock, keyPrefix: 'trpg:settings:' });
  const state = initialGameState();
  const goalKey = `trpg:${CAMPAIGN_ID}:goal`;
  const goalModel = options.goalModel ?? createGoalModel(clock);
  const goal = await establishGoal(store, goalKey, goalModel, state, options.goalHidden ?? true);
  if (!goal.ok) throw new Error(`The campaign cannot start (${goal.code}): ${goal.message}`);
  const campaign = initialCampaign(clock.now(), goal.goal, options.advancePolicy, options.dialogType);
  const id = campaign.campaign_id;
  await settings.set(GLOBAL, 'rollback.max_checkpoints', options.maxCheckpoints ?? 5);
  await settings.set(id, 'dialog.manual_type', campaign.dialog.dialog_type_selected);
  if (options.maxRetries !== undefined) await settings.set(id, 'conflict.max_retries', options.maxRetries);
  const core: SessionCore = {
    clock,
    store,
    settings,
    model: options.model,
    detectors: createGmDetectors(),
    gate: createGmGate(clock),
    campaign,
    actor: createActor(turnPhase, { clock }),
    state,
    summary: INITIAL_SUMMARY,
    summaryVersion: 0,
    turnLog: [],
    ledger: [],
  };
  // The runner's head and journal go to the host's store when it gave one; otherwise to a store of
  // their own, so the session store's versions (the transcript's settings layer versions) count
  // the campaign's writes only.
  const runnerStore = options.store ?? createMemoryStore({ clock });
  const runner = createTurnRunner({
    store: runnerStore,
    clock,
    keyPrefix: `trpg:${id}:`,
    ...(options.generateTurnId === undefined ? {} : { generateTurnId: options.generateTurnId }),
    checkpoints: {
      store,
      // read fresh at every take and rollback: the setting may change mid-campaign
      maxCheckpoints: async () => (await settings.snapshot(id)).get('rollback.max_checkpoints'),
    },
    gate: core.gate,
    loop: {
      detectors: core.detectors,
      stateTools: STATE_TOOLS, // spec §10: a state-changing tool without a detector makes the loop throw
      // spec §7.2: K and both switches are campaign settings, read when each attempt is decided
      policy: async () => trpgConflictPolicy(await settings.snapshot(id)),
    },
    capture: () => captureBranch(core),
    restore: (snapshot) => restoreBranch(core, snapshot),
    onLog: (log) => mirrorLog(core, log),
    accept: (input: TurnInput) => acceptTurn(core, input),
    prepare: (turn) => prepareTurn(core, turn),
    complete: (turn, outcome, data) => completeTurn(core, turn, outcome, data),
  });
  await runner.open({ label: 'campaign start' });

  return {
    get campaign() {
      return core.campaign;
    },
    get state() {
      return core.state;
    },
    get phase() {
      return core.actor.state;
    },
    get turnLog() {
      return core.turnLog;
    },
    get summary() {
      return core.summary;
    },
    get ledger() {
      return core.ledger;
    },
    settings,
    store,
    async turn(input, turnOptions = {}) {
      const { actor_id, user_input } = input;
      const key = turnOptions.messageId;
      return toTurnResult(await runner.run({ actor_id, user_input }, key === undefined ? {} : { key }));
    },
    selectDialogType: (type) => settings.safeSet(core.campaign.campaign_id, 'dialog.manual_type', type),
    changeSetting: (key, value) => settings.safeSet(core.campaign.campaign_id, key, value),
    hostEvent: (event) => core.actor.send(event),
    async setGoalHidden(hidden) {
      const goal = await setGoalHidden(store, goalKey, core.campaign.goal, hidden);
      core.campaign = { ...core.campaign, goal };
      return goal;
    },
    disableTool: (tool, until, reason) => core.gate.disable(tool, until, reason),
    async rollback(toTurnId) {
      const back = await runner.rollback(toTurnId);
      return back.ok ? { ok: true, from_turn_id: back.log.rollback?.fromId ?? toTurnId } : back;
    },
    async undo() {
      const undone = await runner.undo();
      return undone.ok ? { ok: true, restored_turn_id: undone.id } : undone;
    },
    async close() {
      core.actor.close();
      await store.close();
      if (runnerStore !== store) await runnerStore.close();
    },
  };
}

/** The V1 tools that change authoritative state (spec §6.3); each has a detector (spec §10). */
const STATE_TOOLS = ['move', 'hp_delta'];
