// The host's summarizer (spec §2.3): every SUMMARY_EVERY_TURNS turns it writes a new SummaryState
// version from the turn log and the authoritative state (not from the model's prose alone), stored
// under a versioned `summary_state_id`; the milestone's summary-version policy counts it.
import type { SummaryState, TurnLog } from './campaign.js';
import type { GameState } from './world.js';

export const SUMMARY_EVERY_TURNS = 2;

export const INITIAL_SUMMARY: SummaryState = {
  summary_text: '',
  facts_json: {},
  pins: ['Bram is bound by the Lantern Oath.'],
};

export function summarize(
  pins: readonly string[],
  log: readonly TurnLog[],
  state: GameState,
  phase: string,
): SummaryState {
  const hp = Object.values(state.characters).map((c) => [c.character_id, `${c.hp.current}/${c.hp.max}`]);
  return {
    summary_text: log.map((entry) => `T${entry.turn} ${entry.actor_id}: ${entry.user_input}`).join(' / '),
    facts_json: { phase, positions: { ...state.positions }, hp: Object.fromEntries(hp) },
    pins,
  };
}

export const summaryStateId = (campaignId: string, version: number): string =>
  `${campaignId}:summary:v${version}`;
