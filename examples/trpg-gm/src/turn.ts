// One turn, as spec §6–§8 describe it, as the hooks of @parley/turns' runner: refuse what the host
// refuses, read a fresh settings snapshot, advance the milestone when the policy says so, build the
// context for the hand-picked dialog type and hand the model to the runner (which runs the
// conflict loop with the tool gate, commits, and takes the checkpoint); then log the turn in the
// document's shape, apply the host's rules and summarize.
import type { ConflictOutcome, FailedCall, Proposal } from '@parley/conflict';
import type { JsonValue } from '@parley/core';
import type { SettingsSnapshot, SettingsSnapshotJson } from '@parley/settings';
import type { TurnResult as RunnerResult, TurnPlan, TurnRefusal, TurnStart } from '@parley/turns';
import type { TurnLog } from './campaign.js';
import type { trpgSettings } from './settings.js';
import { buildContext, type GmBaseRequest, type GmRequest, withFeedback } from './context.js';
import { type SessionCore, viewOf } from './core.js';
import type { AuthoritativeView } from './detectors.js';
import { advanceMilestone, estimateTokens, isAdvanceDue, recordTurnProgress } from './milestone.js';
import { SUMMARY_EVERY_TURNS, summarize, summaryStateId } from './summary.js';
import type { GmToolContext } from './tools.js';

export interface TurnInput {
  readonly actor_id: string;
  readonly user_input: string;
}

/** What the host refuses before a turn starts. */
export type GmRefusalCode = 'game_over' | 'not_in_party' | 'empty_input';

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
  /** `already_played`: a chat message id seen before (the turn is not played twice). */
  | TurnRefusal<GmRefusalCode | 'already_played'>;

/** What the hooks of one turn share, and the result reports. */
export interface TurnData {
  readonly settings: SettingsSnapshot<typeof trpgSettings>;
  readonly requests: GmRequest[];
  readonly milestoneAdvanced: boolean;
  readonly toolContext: GmToolContext;
  tokens: number;
  gameOver: boolean;
}

const REPORT_NOTICE =
  '[conflict_report] The GM could not answer without contradicting the game state; a human GM will review this turn.';

export function acceptTurn(
  core: SessionCore,
  input: TurnInput,
): { readonly code: GmRefusalCode; readonly reason: string } | undefined {
  if (core.actor.state === 'game_over') {
    return { code: 'game_over', reason: 'The game is over; roll back to play on' };
  }
  if (!core.campaign.selected.party_character_ids.includes(input.actor_id)) {
    return { code: 'not_in_party', reason: `${input.actor_id} is not a player character` };
  }
  return input.user_input.trim() === '' ? { code: 'empty_input', reason: 'Say what you do' } : undefined;
}

export async function prepareTurn(
  core: SessionCore,
  { input, turnId, turn }: TurnStart<TurnInput>,
): Promise<TurnPlan<AuthoritativeView, GmBaseRequest, GmToolContext, TurnData>> {
  const settings = await core.settings.snapshot(core.campaign.campaign_id); // fresh every turn
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
  const data: TurnData = {
    settings,
    requests: [],
    milestoneAdvanced,
    toolContext,
    tokens: 0,
    gameOver: false,
  };
  return {
    request: base,
    readState: () => viewOf(core),
    context: toolContext,
    data,
    generate: async (request, { attempt, signal }) => {
      const sent = withFeedback(base, request.feedback, attempt);
      data.requests.push(sent);
      const output = await core.model(sent, signal === undefined ? {} : { signal });
      data.tokens += estimateTokens(JSON.stringify(sent.messages)) + estimateTokens(output?.text ?? '');
      return output;
    },
  };
}

export async function completeTurn(
  core: SessionCore,
  { input, turnId, turn }: TurnStart<TurnInput>,
  outcome: ConflictOutcome<Proposal, GmBaseRequest>,
  data: TurnData,
): Promise<TurnLog> {
  const { settings, toolContext } = data;
  const campaignId = core.campaign.campaign_id;
  const log: TurnLog = {
    turn_id: turnId,
    turn,
    actor_id: input.actor_id,
    user_input: input.user_input,
    assistant_output_text: outcome.ok ? outcome.output.text : REPORT_NOTICE,
    assistant_structured: {
      tool_calls: outcome.ok ? (outcome.output.tool_calls ?? []) : [],
      dialog_type: toolContext.dialogType,
      settings_version: settings.version,
      attempts: outcome.attempts.length,
      retries: outcome.retries,
      milestone_value: core.campaign.milestone.value,
      ...(outcome.ok ? {} : { conflict_report: outcome.report }),
    },
    applied_actions: outcome.appliedActions,
    timestamp: core.clock.now(),
  };
  core.turnLog.push(log);

  // The host's rule: with `rules.hp_zero_ends_game`, a dead party member ends the game.
  data.gameOver =
    toolContext.hpZeroEndsGame &&
    core.campaign.selected.party_character_ids.some(
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
    milestone: recordTurnProgress(core.campaign.milestone, data.tokens, summarized),
    updated_at: core.clock.now(),
  };
  return log;
}

/** The runner's result in the session's shape. */
export function toTurnResult(
  result: RunnerResult<TurnLog, GmBaseRequest, TurnData, GmRefusalCode>,
): TurnResult {
  if (!result.ok) return result;
  if (result.replayed) {
    const message = `That message was played as ${result.turnId}`;
    return { ok: false, code: 'already_played', message, reason: message };
  }
  const { record: log, outcome, data, branchCommitted } = result;
  return {
    ok: true,
    log,
    outcome,
    requests: data.requests,
    refused: outcome.attempts.flatMap((a) => a.toolFeedback?.failed_calls ?? []),
    settings: data.settings.toJSON(),
    maxRetries: data.settings.get('conflict.max_retries'),
    milestoneAdvanced: data.milestoneAdvanced,
    branchCommitted,
    gameOver: data.gameOver,
  };
}
