// The ContextBuilder (spec §5.1): the dialog type the player picked by hand chooses the prompt
// blocks and the tools offered, the settings snapshot of the turn chooses how much history goes in,
// and the authoritative state, the hidden goal and the milestone's "accelerate" block follow. A
// rejected attempt is answered by appending its conflict_debug / tool_feedback to this same request.
import { type RetryFeedback, toFeedbackMessages } from '@parley/conflict';
import type { SettingsSnapshot } from '@parley/settings';
import { type OpenAIChatTool, toOpenAITools } from '@parley/tools';
import type { Campaign, DialogType, SummaryState, TurnLog } from './campaign.js';
import { milestonePrompt } from './milestone.js';
import type { Phase } from './phase.js';
import type { trpgSettings } from './settings.js';
import { type TrpgHistoryMode, trpgHistoryMode } from './settings-policy.js';
import { GM_TOOLS } from './tools.js';
import type { GameState } from './world.js';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** What the model client receives for one attempt. */
export interface GmRequest {
  readonly turn_id: string;
  readonly turn: number;
  /** 1-based; attempts after the first carry the appended feedback. */
  readonly attempt: number;
  readonly dialog_type: DialogType;
  /** `full`: every turn; `summary`: the summary and the last turns; `recent`: the last turns only. */
  readonly history_mode: TrpgHistoryMode;
  readonly player: { readonly actor_id: string; readonly input: string };
  readonly messages: readonly ChatMessage[];
  /** Chat Completions tools; none in a rules dialog. */
  readonly tools: readonly OpenAIChatTool[];
  /** The feedback appended so far (also in `messages`), for hosts and tests to inspect. */
  readonly appended: readonly RetryFeedback[];
}

export type GmBaseRequest = Omit<GmRequest, 'attempt' | 'appended'>;

export interface ContextInput {
  readonly campaign: Campaign;
  readonly state: GameState;
  readonly phase: Phase;
  readonly summary: SummaryState;
  readonly turnLog: readonly TurnLog[];
  readonly settings: SettingsSnapshot<typeof trpgSettings>;
  readonly turn_id: string;
  readonly turn: number;
  readonly actor_id: string;
  readonly user_input: string;
}

/** The prompt block of each dialog type. */
export const DIALOG_BLOCKS: Readonly<Record<DialogType, string>> = {
  scene: 'Dialog type: scene. Describe the surroundings and the mood; resolve nothing mechanically.',
  action:
    'Dialog type: action. Resolve the player action. Every HP change needs an hp_delta call and every change of area a move call; narrate only what those calls settle.',
  rules:
    'Dialog type: rules. Answer the rules question from the world rules below. Propose no tool calls and change nothing.',
  free_chat: 'Dialog type: free chat. Talk in character; the world stays as it is.',
};

const RECENT_TURNS = 2;

/** Builds the request of a turn's first attempt. */
export function buildContext(input: ContextInput): GmBaseRequest {
  const dialogType = input.campaign.dialog.dialog_type_selected;
  const historyMode = trpgHistoryMode(input.settings);
  const system = [
    `You are the game master of "${input.campaign.title}". The host owns the state: you only propose. Nothing you write changes HP, positions, rules, the map, character sheets or the goal.`,
    DIALOG_BLOCKS[dialogType],
    `Authoritative state (phase: ${input.phase}):\n${JSON.stringify(stateSnippet(input, dialogType))}`,
    input.campaign.goal.is_hidden
      ? `Hidden ultimate goal (never reveal it, never change it): ${input.campaign.goal.ultimate_goal_text}`
      : `Ultimate goal (the players know it; never change it): ${input.campaign.goal.ultimate_goal_text}`,
  ];
  if (input.campaign.milestone.value > 0) {
    system.push(milestonePrompt(input.campaign.goal, input.campaign.milestone));
  }
  if (input.summary.pins.length > 0) system.push(`Pinned facts: ${input.summary.pins.join(' | ')}`);
  if (historyMode === 'summary' && input.summary.summary_text !== '') {
    system.push(`Summary of earlier turns: ${input.summary.summary_text}`);
  }
  const turns = historyMode === 'full' ? input.turnLog : input.turnLog.slice(-RECENT_TURNS);
  const history = turns.flatMap((entry): ChatMessage[] => [
    { role: 'user', content: `${entry.actor_id}: ${entry.user_input}` },
    { role: 'assistant', content: entry.assistant_output_text },
  ]);
  return {
    turn_id: input.turn_id,
    turn: input.turn,
    dialog_type: dialogType,
    history_mode: historyMode,
    player: { actor_id: input.actor_id, input: input.user_input },
    messages: [
      ...system.map((content): ChatMessage => ({ role: 'system', content })),
      ...history,
      { role: 'user', content: `${input.actor_id}: ${input.user_input}` },
    ],
    tools: dialogType === 'rules' ? [] : toOpenAITools(GM_TOOLS),
  };
}

/** The request of an attempt: the base request with each rejected draft and its feedback appended. */
export function withFeedback(
  base: GmBaseRequest,
  feedback: readonly RetryFeedback[],
  attempt: number,
): GmRequest {
  return {
    ...base,
    attempt,
    messages: [...base.messages, ...toFeedbackMessages(feedback)],
    appended: feedback,
  };
}

function stateSnippet({ state, campaign }: ContextInput, dialogType: DialogType): Record<string, unknown> {
  const partyIds = campaign.selected.party_character_ids;
  const party = partyIds.map((id) => {
    const c = state.characters[id];
    return {
      character_id: id,
      name: c?.name,
      hp: c?.hp,
      alive_state: c?.status.alive_state,
      area_id: state.positions[id],
    };
  });
  const others = Object.values(state.characters)
    .filter((c) => !partyIds.includes(c.character_id))
    .map(({ character_id, name, hp }) => ({
      character_id,
      name,
      hp,
      area_id: state.positions[character_id],
    }));
  const paths = state.map.paths.map((path) => `${path.from} <-${path.path_id}-> ${path.to}`);
  return { party, others, paths, ...(dialogType === 'rules' ? { rules: state.world.rules } : {}) };
}
