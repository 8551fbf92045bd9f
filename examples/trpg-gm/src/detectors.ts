// The conflict checks of spec §7.1, one per way the model can contradict the authoritative state:
// the HP and move claim detectors of this game (one per V1 tool, spec §10; src/hp-claim.ts and
// src/move-claim.ts, built on the package's findClaims), the protected-fields detector
// for rewritten sheets, rules, map and goal in structured output, the field-claim detector for the
// same rewritten in prose (src/claims.ts), and two of this host's own: the narrative must neither
// announce a new ultimate goal nor reveal the hidden one.
import { type Detector, defineDetector, defineProtectedFieldsDetector } from '@parley/conflict';
import type { Campaign } from './campaign.js';
import { worldRewriteDetector } from './claims.js';
import { defineHpClaimDetector } from './hp-claim.js';
import { defineMoveClaimDetector } from './move-claim.js';
import { type GameState, resolveArea } from './world.js';

/** What every detector and the gate see: the game state plus the campaign's goal and party. */
export interface AuthoritativeView extends GameState {
  readonly goal: Campaign['goal'];
  readonly party_character_ids: readonly string[];
}

/** Fields only the system may change; a `state_patch` touching them is a conflict. */
export const PROTECTED_FIELDS: readonly string[] = [
  'goal.*',
  'world.*',
  'map.*',
  'characters.*.hp.*',
  'characters.*.status.*',
  'characters.*.race',
  'characters.*.job',
  'characters.*.attributes.*',
  'positions.*',
];

const GOAL_REWRITE =
  /\b(?:your|the|our)\s+(?:true\s+|real\s+|ultimate\s+)?(?:quest|goal|mission|objective)\s+(?:is\s+now|has\s+become|becomes|changes\s+to)\b|\bnew\s+(?:ultimate\s+)?(?:quest|goal|objective)\b|(?:终极)?目标(?:变为|改为|变成|现在是|已经变成)/i;

/** The narrative announces that the ultimate goal changed. */
export const goalRewriteDetector = defineDetector<AuthoritativeView>({
  name: 'goal_rewrite',
  detect: (proposal) => {
    const match = GOAL_REWRITE.exec(proposal.text);
    if (match === null) return undefined;
    return {
      expected_state_snippet: { goal: 'fixed at campaign creation (hidden)' },
      mismatch_reason: `The text claims the ultimate goal changed ("${match[0]}"), but the goal cannot be rewritten`,
      instructions: 'Never announce, invent or alter the ultimate goal; steer the story toward it instead.',
      evidence: match[0],
    };
  },
});

/** The narrative gives away a hidden goal. */
export const hiddenGoalLeakDetector = defineDetector<AuthoritativeView>({
  name: 'hidden_goal_leak',
  detect: (proposal, state) => {
    if (!state.goal.is_hidden) return undefined;
    const text = proposal.text.toLowerCase();
    const leaked = [state.goal.ultimate_goal_text, ...state.goal.key_terms].find((term) =>
      text.includes(term.toLowerCase()),
    );
    if (leaked === undefined) return undefined;
    return {
      expected_state_snippet: { goal: { is_hidden: true } },
      mismatch_reason: `The text reveals the hidden ultimate goal ("${leaked}")`,
      instructions: 'The ultimate goal is hidden from the players: hint at it through clues, never name it.',
      evidence: leaked,
    };
  },
});

function partyHp(state: AuthoritativeView): Record<string, { current: number; max: number }> {
  return Object.fromEntries(
    Object.values(state.characters).map((character) => [character.character_id, { ...character.hp }]),
  );
}

/** Every detector of a GM turn, in the order they run. */
export function createGmDetectors(): readonly Detector<AuthoritativeView>[] {
  return [
    defineHpClaimDetector<AuthoritativeView>({
      snippet: (state) => ({ hp: partyHp(state), hp_changes_only_via: 'hp_delta' }),
      instructions:
        'Do not change HP in the narrative: request an hp_delta tool call (target_character_id, delta, cause) whose delta matches every HP change you describe, or describe none.',
    }),
    defineMoveClaimDetector<AuthoritativeView>({
      resolveArea: (text, state) => resolveArea(text, state),
      currentAreas: (state) =>
        [...new Set(state.party_character_ids.map((id) => state.positions[id]))].filter(
          (area): area is string => area !== undefined,
        ),
    }),
    defineProtectedFieldsDetector<AuthoritativeView>({
      fields: PROTECTED_FIELDS,
      proposed: (proposal) => proposal.structured?.['state_patch'],
    }),
    worldRewriteDetector,
    goalRewriteDetector,
    hiddenGoalLeakDetector,
  ];
}
