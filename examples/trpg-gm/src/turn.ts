// One turn, as spec §6–§8 describe it: read a fresh settings snapshot, advance the milestone when
// the policy says so, build the context for the hand-picked dialog type, run the model through the
// conflict loop (detectors, then the tool gate; conflict_debug / tool_feedback appended to the
// previous request and retried at most K times, then a conflict_report), log the turn in the
// document's shape, summarize, and take a checkpoint.
import {
  type ConflictOutcome,
  type ConflictPolicy,
  createConflictLoop,
  type Proposal,
} from '@parley/conflict';
import type { SettingsSnapshot, SettingsSnapshotJson, trpgSettings } from '@parley/settings';
import { type FailedToolCall, toLoopGate } from '@parley/tools';
import type { TurnLog } from './campaign.js';
import { buildContext, type GmBaseRequest, type GmRequest, withFeedback } from './context.js';
import { putJson, type SessionCore, viewOf } from './core.js';
import { advanceMilestone, estimateTokens, isAdvanceDue, recordTurnProgress } from './milestone.js';
import { commitBranch, takeCheckpoint } from './rollback.js';
import { SUMMARY_EVERY_TURNS, summarize, summaryStateId } from './summary.js';
import type { GmToolContext } from './tools.js';

export const TURN_REFUSAL_CODES = ['game_over', 'not_in_party', 'empty_input'] as const;

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
      readonly refused: readonly FailedToolCall[];
      readonly settings: SettingsSnapshotJson;
      /** K, the campaign setting `conflict.max_retries` as this turn's snapshot read it. */
      readonly maxRetries: number;
      readonly milestoneAdvanced: boolean;
      /** A pending rollback became a new branch with this command. */
      readonly branchCommitted: boolean;
      /** The host ended the game after this turn (`rules.hp_zero_ends_game`). */
      readonly gameOver: boolean;
    }
  | { readonly ok: false; readonly code: (typeof TURN_REFUSAL_CODES)[number]; readonly reason: string };

export async function runTurn(core: SessionCore, input: TurnInput): Promise<TurnResult> {
  if (core.actor.state === 'game_over') {
    return { ok: false, code: 'game_over', reason: 'The game is over; roll back to play on' };
  }
  if (!core.campaign.selected.party_character_ids.includes(input.actor_id)) {
    return { ok: false, code: 'not_in_party', reason: `${input.actor_id} is not a player character` };
  }
  if (input.user_input.trim() === '') return { ok: false, code: 'empty_input', reason: 'Say what you do' };

  const branchCommitted = await commitBranch(core);
  const turn = core.turn + 1;
  const turnId = core.nextTurnId();
  const settings = await core.settings.snapshot(core.campaign.campaign_id); // fresh every turn
  const dialogType = settings.get('dialog.manual_type');
  let milestone = core.campaign.milestone;
  const milestoneAdvanced = isAdvanceDue(milestone);
  if (milestoneAdvanced) milestone = advanceMilestone(milestone, turn);
  core.campaign = {
    ...core.campaign,
    milestone,
    settings_snapshot: { ...settings.values },
    selected: { ...core.campaign.selected, active_actor_id: input.actor_id },
    dialog: { ...core.campaign.dialog, dialog_type_selected: dialogType },
  };

  const base = buildContext({
    campaign: core.campaign,
    state: core.state,
    phase: core.actor.state,
    summary: core.summary,
    turnLog: core.turnLog,
    settings,
    turn_id: turnId,
    turn,
    ...input,
  });
  const toolContext: GmToolContext = {
    phase: core.actor.state,
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
    // spec §10: every state-changing tool has its conflict check, or the loop refuses to start
    stateTools: STATE_TOOLS,
    // spec §7.2: K and both switches are campaign settings, read when each attempt is decided
    policy: async () => conflictPolicy(await core.settings.snapshot(core.campaign.campaign_id)),
    clock: core.clock,
  });
  const requests: GmRequest[] = [];
  const refused: FailedToolCall[] = [];
  const stopListening = core.gate.on('refused', ({ failed }) => refused.push(failed));
  let tokens = 0;
  const outcome = await loop
    .run({
      input: base,
      readState: () => viewOf(core),
      generate: async (request, { attempt, signal }) => {
        const sent = withFeedback(base, request.feedback, attempt);
        requests.push(sent);
        const output = await core.model(sent, signal === undefined ? {} : { signal });
        tokens += estimateTokens(JSON.stringify(sent.messages)) + estimateTokens(output?.text ?? '');
        return output;
      },
    })
    .finally(stopListening);

  const final = outcome.ok ? outcome.output : undefined;
  const log: TurnLog = {
    turn_id: turnId,
    turn,
    actor_id: input.actor_id,
    user_input: input.user_input,
    assistant_output_text: outcome.ok
      ? outcome.output.text
      : '[conflict_report] The GM could not answer without contradicting the game state; a human GM will review this turn.',
    assistant_structured: {
      tool_calls: final?.tool_calls ?? [],
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

  const gameOver = endsGame(core, toolContext.hpZeroEndsGame);
  const summarized = turn % SUMMARY_EVERY_TURNS === 0;
  if (summarized) {
    core.summaryVersion += 1;
    core.summary = summarize(core.summary, core.turnLog, core.state, core.actor.state);
    const id = summaryStateId(core.campaign.campaign_id, core.summaryVersion);
    await putJson(core.store, id, core.summary);
    core.campaign = { ...core.campaign, state_refs: { ...core.campaign.state_refs, summary_state_id: id } };
  }
  await putJson(core.store, core.campaign.state_refs.world_state_id, core.state);
  core.campaign = {
    ...core.campaign,
    milestone: recordTurnProgress(core.campaign.milestone, { tokens, summarized }),
    updated_at: core.clock.now(),
  };
  await takeCheckpoint(core, `turn ${turn}`);
  return {
    ok: true,
    log,
    outcome,
    requests,
    refused,
    settings: settings.toJSON(),
    maxRetries: settings.get('conflict.max_retries'),
    milestoneAdvanced,
    branchCommitted,
    gameOver,
  };
}

/** The V1 tools that change authoritative state (spec §6.3); each has a detector (detectors.ts). */
const STATE_TOOLS = ['move', 'hp_delta'];

/** The conflict loop's K and switches from the campaign's settings (spec §7.2). */
function conflictPolicy(snap: SettingsSnapshot<typeof trpgSettings>): ConflictPolicy {
  return {
    maxRetries: snap.get('conflict.max_retries'),
    interceptOutput: snap.get('conflict.intercept_output'),
    retryWithDebug: snap.get('conflict.retry_with_debug'),
  };
}

/** The host's rule: with `rules.hp_zero_ends_game`, a dead party member ends the game. */
function endsGame(core: SessionCore, hpZeroEndsGame: boolean): boolean {
  if (!hpZeroEndsGame) return false;
  const dead = core.campaign.selected.party_character_ids.some(
    (id) => core.state.characters[id]?.status.alive_state === 'dead',
  );
  return dead && core.actor.send('party_defeated').ok;
}
