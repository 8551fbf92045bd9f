// One turn, as spec §6–§8 describe it: read a fresh settings snapshot, advance the milestone when
// the policy says so, build the context for the hand-picked dialog type, run the model through the
// conflict loop of @parley/conflict (detectors, then the @parley/tools gate; feedback appended to the
// previous request, at most K retries, then a conflict_report), log the turn in the document's
// shape, summarize, and take a checkpoint.
import { type ConflictOutcome, createConflictLoop, type FailedCall, type Proposal } from '@parley/conflict';
import type { JsonValue } from '@parley/core';
import { type SettingsSnapshotJson, trpgConflictPolicy } from '@parley/settings';
import { toLoopGate } from '@parley/tools';
import type { TurnLog } from './campaign.js';
import { buildContext, type GmBaseRequest, type GmRequest, withFeedback } from './context.js';
import { type SessionCore, viewOf } from './core.js';
import { advanceMilestone, estimateTokens, isAdvanceDue, recordTurnProgress } from './milestone.js';
import { SUMMARY_EVERY_TURNS, summarize, summaryStateId } from './summary.js';
import type { GmToolContext } from './tools.js';

export interface TurnInput {
  readonly actor_id: string;
  readonly user_input: string;
}

export type TurnResult =
  | {
      readonly ok: true;
      readonly log: TurnLog;
      readonly outcome: ConflictOutcome<Proposal, GmBaseRequest>;
      /** Every request the model received this turn, in order. */
      readonly requests: readonly GmRequest[];
      /** The gate's refusals this turn, with their codes (the model saw them as tool_feedback). */
      readonly refused: readonly FailedCall[];
      readonly settings: SettingsSnapshotJson;
      /** K, the campaign setting `conflict.max_retries` as this turn's snapshot read it. */
      readonly maxRetries: number;
      readonly milestoneAdvanced: boolean;
      /** A pending rollback became a new branch with this command. */
      readonly branchCommitted: boolean;
      /** The host ended the game after this turn (`rules.hp_zero_ends_game`). */
      readonly gameOver: boolean;
    }
  | {
      readonly ok: false;
      readonly code: 'game_over' | 'not_in_party' | 'empty_input';
      readonly reason: string;
    };

/** The V1 tools that change authoritative state (spec §6.3); each has a detector (spec §10). */
const STATE_TOOLS = ['move', 'hp_delta'];
const REPORT_NOTICE =
  '[conflict_report] The GM could not answer without contradicting the game state; a human GM will review this turn.';

export async function runTurn(core: SessionCore, input: TurnInput): Promise<TurnResult> {
  if (core.actor.state === 'game_over') {
    return { ok: false, code: 'game_over', reason: 'The game is over; roll back to play on' };
  }
  if (!core.campaign.selected.party_character_ids.includes(input.actor_id)) {
    return { ok: false, code: 'not_in_party', reason: `${input.actor_id} is not a player character` };
  }
  if (input.user_input.trim() === '') return { ok: false, code: 'empty_input', reason: 'Say what you do' };

  const commit = await core.checkpoints.commit();
  const branchCommitted = commit.ok && commit.committed;
  const [turn, turnId, campaignId] = [core.turn + 1, core.nextTurnId(), core.campaign.campaign_id];
  const settings = await core.settings.snapshot(campaignId); // fresh every turn
  const dialogType = settings.get('dialog.manual_type');
  const milestoneAdvanced = isAdvanceDue(core.campaign.milestone);
  const milestone = milestoneAdvanced
    ? advanceMilestone(core.campaign.milestone, turn)
    : core.campaign.milestone;
  core.campaign = {
    ...core.campaign,
    milestone,
    settings_snapshot: { ...settings.values },
    selected: { ...core.campaign.selected, active_actor_id: input.actor_id },
    dialog: { ...core.campaign.dialog, dialog_type_selected: dialogType },
  };
  const { campaign, state, summary, turnLog } = core;
  const phase = core.actor.state;
  const base = buildContext({
    campaign,
    state,
    phase,
    summary,
    turnLog,
    settings,
    turn_id: turnId,
    turn,
    ...input,
  });
  const toolContext: GmToolContext = {
    phase,
    dialogType,
    hpZeroEndsGame: settings.get('rules.hp_zero_ends_game'),
    read: () => core.state,
    commit: (callId, action, next) => {
      core.state = next;
      core.ledger.push({ turn_id: turnId, call_id: callId, action });
    },
  };
  const loop = createConflictLoop({
    detectors: core.detectors,
    gate: toLoopGate(core.gate, () => ({ turn, context: toolContext })),
    stateTools: STATE_TOOLS, // spec §10: a state-changing tool without a detector makes the loop throw
    // spec §7.2: K and both switches are campaign settings, read when each attempt is decided
    policy: async () => trpgConflictPolicy(await core.settings.snapshot(campaignId)),
    clock: core.clock,
  });
  const requests: GmRequest[] = [];
  let tokens = 0;
  const outcome = await loop.run({
    input: base,
    readState: () => viewOf(core),
    generate: async (request, { attempt, signal }) => {
      const sent = withFeedback(base, request.feedback, attempt);
      requests.push(sent);
      const output = await core.model(sent, signal === undefined ? {} : { signal });
      tokens += estimateTokens(JSON.stringify(sent.messages)) + estimateTokens(output?.text ?? '');
      return output;
    },
  });

  const log: TurnLog = {
    turn_id: turnId,
    turn,
    actor_id: input.actor_id,
    user_input: input.user_input,
    assistant_output_text: outcome.ok ? outcome.output.text : REPORT_NOTICE,
    assistant_structured: {
      tool_calls: outcome.ok ? (outcome.output.tool_calls ?? []) : [],
      dialog_type: dialogType,
      settings_version: settings.version,
      attempts: outcome.attempts.length,
      retries: outcome.retries,
      milestone_value: milestone.value,
      ...(outcome.ok ? {} : { conflict_report: outcome.report }),
    },
    applied_actions: outcome.appliedActions,
    timestamp: core.clock.now(),
  };
  core.turnLog.push(log);
  core.turn = turn;
  core.lastTurnId = turnId;

  // The host's rule: with `rules.hp_zero_ends_game`, a dead party member ends the game.
  const gameOver =
    toolContext.hpZeroEndsGame &&
    campaign.selected.party_character_ids.some(
      (id) => core.state.characters[id]?.status.alive_state === 'dead',
    ) &&
    core.actor.send('party_defeated').ok;
  const summarized = turn % SUMMARY_EVERY_TURNS === 0;
  if (summarized) {
    core.summaryVersion += 1;
    core.summary = summarize(core.summary.pins, core.turnLog, core.state, core.actor.state);
    const id = summaryStateId(campaignId, core.summaryVersion);
    await core.store.set(id, core.summary as unknown as JsonValue); // built from JSON values only
    core.campaign = { ...core.campaign, state_refs: { ...core.campaign.state_refs, summary_state_id: id } };
  }
  await core.store.set(core.campaign.state_refs.world_state_id, core.state as unknown as JsonValue);
  core.campaign = {
    ...core.campaign,
    milestone: recordTurnProgress(core.campaign.milestone, tokens, summarized),
    updated_at: core.clock.now(),
  };
  await core.checkpoints.take(turnId, { label: `turn ${turn}` });
  const refused = outcome.attempts.flatMap((a) => a.toolFeedback?.failed_calls ?? []);
  const maxRetries = settings.get('conflict.max_retries');
  const toJSON = settings.toJSON();
  return {
    ok: true,
    log,
    outcome,
    requests,
    refused,
    settings: toJSON,
    maxRetries,
    milestoneAdvanced,
    branchCommitted,
    gameOver,
  };
}
