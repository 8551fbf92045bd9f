// Milestone advance under token pressure (spec §8): the campaign's policy counts turns, estimated
// tokens or summary versions since the last advance; when the threshold is reached the milestone
// advances at the start of the next turn, and the system prompt gains the "accelerate" block.
import type { AdvancePolicy, Campaign, Milestone } from './campaign.js';

/** The instructions added to the system prompt after an advance (spec §8.3). */
export const ACCELERATE_INSTRUCTIONS: readonly string[] = [
  'Raise the urgency of the scene.',
  'Increase the density of clues.',
  'Guide the players toward the ultimate goal.',
  'Still change no state yourself: request tool calls for every HP change or move.',
];

/**
 * The system-prompt block after an advance (spec §8.3), built on the ultimate goal: the milestone
 * reached, the accelerate instructions, and the goal the story converges on (to the GM only).
 */
export function milestonePrompt(goal: Campaign['goal'], milestone: Milestone): string {
  return [
    `Milestone ${milestone.value} reached.`,
    `It advanced at turn ${milestone.last_advanced_at_turn}.`,
    ...ACCELERATE_INSTRUCTIONS,
    `Converge on the ultimate goal: ${goal.ultimate_goal_text}`,
    `Each milestone brings the party one clear step closer to it; ${goal.is_hidden ? 'keep it hidden: hint, never name it' : 'the players know it'}.`,
  ].join(' ');
}

/** What each policy counts, and its unit in the transcript. */
const COUNTED: Readonly<Record<AdvancePolicy['policy'], readonly [keyof Milestone['progress'], string]>> = {
  by_turn_count: ['turns', 'turns'],
  by_token_estimate: ['token_estimate', 'tokens'],
  by_summary_version: ['summary_versions', 'summary versions'],
};

const thresholdOf = (p: AdvancePolicy): number =>
  p.policy === 'by_turn_count'
    ? p.every_n_turns
    : p.policy === 'by_token_estimate'
      ? p.token_threshold
      : p.versions_per_advance;

const countedBy = ({ advance_policy, progress }: Milestone): number =>
  progress[COUNTED[advance_policy.policy][0]];

/** A rough token count (4 characters a token): enough to measure context pressure. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** Whether the policy's threshold has been reached since the last advance. */
export const isAdvanceDue = (milestone: Milestone): boolean =>
  thresholdOf(milestone.advance_policy) <= countedBy(milestone);

/** The milestone after an advance at `turn`. */
export function advanceMilestone(milestone: Milestone, turn: number): Milestone {
  const progress = { turns: 0, token_estimate: 0, summary_versions: 0 };
  return { ...milestone, value: milestone.value + 1, last_advanced_at_turn: turn, progress };
}

/** The milestone after a turn: one more turn, its tokens, and a new summary version if one was made. */
export function recordTurnProgress(milestone: Milestone, tokens: number, summarized: boolean): Milestone {
  const { turns, token_estimate, summary_versions } = milestone.progress;
  return {
    ...milestone,
    progress: {
      turns: turns + 1,
      token_estimate: token_estimate + tokens,
      summary_versions: summary_versions + (summarized ? 1 : 0),
    },
  };
}

/** How far the counted value is, as text for the transcript ("5/7 turns"). */
export function describeProgress(milestone: Milestone): string {
  const policy = milestone.advance_policy;
  return `${countedBy(milestone)}/${thresholdOf(policy)} ${COUNTED[policy.policy][1]}`;
}
