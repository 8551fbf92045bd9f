// Milestone advance under token pressure (spec §8): the campaign's policy counts turns, estimated
// tokens or summary versions since the last advance; when the threshold is reached the milestone
// advances at the start of the next turn, and the system prompt gains the "accelerate" block.
import type { AdvancePolicy, Milestone } from './campaign.js';

/** The instructions added to the system prompt after an advance (spec §8.3). */
export const ACCELERATE_INSTRUCTIONS: readonly string[] = [
  'Raise the urgency of the scene.',
  'Increase the density of clues.',
  'Guide the players toward the ultimate goal.',
  'Still change no state yourself: request tool calls for every HP change or move.',
];

/** A rough token count (4 characters a token): enough to measure context pressure. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Whether the policy's threshold has been reached since the last advance. */
export function isAdvanceDue(milestone: Milestone): boolean {
  const { advance_policy: policy, progress } = milestone;
  return thresholdOf(policy) <= countedBy(policy, progress);
}

/** The milestone after an advance at `turn`. */
export function advanceMilestone(milestone: Milestone, turn: number): Milestone {
  return {
    ...milestone,
    value: milestone.value + 1,
    last_advanced_at_turn: turn,
    progress: { turns: 0, token_estimate: 0, summary_versions: 0 },
  };
}

/** The milestone after a turn: one more turn, its tokens, and a new summary version if one was made. */
export function recordTurnProgress(
  milestone: Milestone,
  turn: { readonly tokens: number; readonly summarized: boolean },
): Milestone {
  const { progress } = milestone;
  return {
    ...milestone,
    progress: {
      turns: progress.turns + 1,
      token_estimate: progress.token_estimate + turn.tokens,
      summary_versions: progress.summary_versions + (turn.summarized ? 1 : 0),
    },
  };
}

/** How far the counted value is, as text for the transcript ("5/7 turns"). */
export function describeProgress(milestone: Milestone): string {
  const policy = milestone.advance_policy;
  const unit =
    policy.policy === 'by_turn_count'
      ? 'turns'
      : policy.policy === 'by_token_estimate'
        ? 'tokens'
        : 'summary versions';
  return `${countedBy(policy, milestone.progress)}/${thresholdOf(policy)} ${unit}`;
}

function thresholdOf(policy: AdvancePolicy): number {
  switch (policy.policy) {
    case 'by_turn_count':
      return policy.every_n_turns;
    case 'by_token_estimate':
      return policy.token_threshold;
    case 'by_summary_version':
      return policy.versions_per_advance;
  }
}

function countedBy(policy: AdvancePolicy, progress: Milestone['progress']): number {
  switch (policy.policy) {
    case 'by_turn_count':
      return progress.turns;
    case 'by_token_estimate':
      return progress.token_estimate;
    case 'by_summary_version':
      return progress.summary_versions;
  }
}
