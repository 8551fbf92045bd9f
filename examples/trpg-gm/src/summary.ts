// The host's summarizer (spec §2.3): every SUMMARY_EVERY_TURNS turns it writes a new SummaryState
// version from the turn log and the authoritative state (not from the model's prose alone), stores
// it under a versioned `summary_state_id`, and the milestone's summary-version policy counts it.
import type { SummaryState, TurnLog } from './campaign.js';
import type { GameState } from './world.js';

export const SUMMARY_EVERY_TURNS = 2;

export const INITIAL_SUMMARY: SummaryState = {
  summary_text: '',
  facts_json: {},
  pins: ['Bram is bound by the Lantern Oath.'],
};

export function summarize(
  previous: SummaryState,
  turnLog: readonly TurnLog[],
  state: GameState,
  phase: string,
): SummaryState {
  const lines = turnLog.map((entry) => `T${entry.turn} ${entry.actor_id}: ${entry.user_input}`);
  return {
    summary_text: lines.join(' / '),
    facts_json: {
      phase,
      positions: { ...state.positions },
      hp: Object.fromEntries(
        Object.values(state.characters).map((character) => [
          character.character_id,
          `${character.hp.current}/${character.hp.max}`,
        ]),
      ),
    },
    pins: previous.pins,
  };
}

export function summaryStateId(campaignId: string, version: number): string {
  return `${campaignId}:summary:v${version}`;
}
