// The ultimate goal (spec §8.1): generated once, at campaign creation, by the model from the world
// background, the map and the characters' backgrounds; checked by the host (a text of bounded
// length, grounded in a place of the map, with the words that would give it away); then written
// once to the store and frozen. Nothing can rewrite its text afterwards; only whether the players
// see it (`is_hidden`) may change. Milestone prompts build on it (src/milestone.ts).
import type { Store } from '@parley/core';
import { z } from 'zod';
import type { Campaign } from './campaign.js';
import type { ChatMessage } from './context.js';
import type { GameState } from './world.js';

/** What the goal model receives: the three inputs of spec §8.1, as data and as chat messages. */
export interface GoalRequest {
  readonly purpose: 'ultimate_goal';
  /** 1-based; the second attempt carries the reason the first was refused. */
  readonly attempt: number;
  readonly inputs: {
    readonly world_background: string;
    readonly map: { readonly areas: readonly string[]; readonly paths: readonly string[] };
    readonly characters: readonly { readonly name: string; readonly background: string }[];
  };
  readonly messages: readonly ChatMessage[];
}

/** What the model proposes: the goal, and the words that would give it away if the story said them. */
export const GoalProposalSchema = z.strictObject({
  ultimate_goal_text: z.string().trim().min(20).max(300),
  key_terms: z.array(z.string().trim().min(3).max(60)).min(1).max(6),
});
export type GoalProposal = z.infer<typeof GoalProposalSchema>;

/** The goal as it is stored: the proposal's fields and whether it is hidden. */
const StoredGoalSchema = GoalProposalSchema.extend({ is_hidden: z.boolean() });

/** Any model client that answers a goal request. */
export type GoalModel = (request: GoalRequest) => Promise<unknown>;

/** The campaign's goal: the document's two fields plus the words the leak check looks for. */
export type UltimateGoal = Campaign['goal'];

export type GoalResult =
  | { readonly ok: true; readonly goal: UltimateGoal; readonly generated: boolean }
  | { readonly ok: false; readonly code: 'invalid_goal'; readonly message: string };

/** Tries of the goal model before the campaign cannot start. */
export const GOAL_ATTEMPTS = 2;

/** The spec §8.1 inputs of the goal, read from the authoritative state. */
export function goalRequest(state: GameState, attempt: number, refusal?: string): GoalRequest {
  const inputs = {
    world_background: state.world.background,
    map: {
      areas: Object.values(state.map.areas).map((area) => area.name),
      paths: state.map.paths.map((path) => `${path.from} <-${path.path_id}-> ${path.to}`),
    },
    characters: Object.values(state.characters).map(({ name, background }) => ({ name, background })),
  };
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        'Write the ultimate goal of this campaign in one sentence: grounded in the world background, set in a place of the map, tied to the characters. Answer as JSON { ultimate_goal_text, key_terms } where key_terms are the words that would give the goal away.',
    },
    { role: 'user', content: JSON.stringify(inputs) },
    ...(refusal === undefined ? [] : [{ role: 'system' as const, content: `Refused: ${refusal}` }]),
  ];
  return { purpose: 'ultimate_goal', attempt, inputs, messages };
}

/** Asks the model for the goal and checks it, once more with the reason when the first is refused. */
export async function generateGoal(model: GoalModel, state: GameState, hidden: boolean): Promise<GoalResult> {
  let refusal: string | undefined;
  for (let attempt = 1; attempt <= GOAL_ATTEMPTS; attempt++) {
    const checked = checkProposal(await model(goalRequest(state, attempt, refusal)), state);
    if (checked.ok)
      return { ok: true, goal: freezeGoal({ ...checked.value, is_hidden: hidden }), generated: true };
    refusal = checked.message;
  }
  return { ok: false, code: 'invalid_goal', message: refusal ?? 'no goal proposed' };
}

/**
 * The campaign's goal: the one already stored under `key` (never generated twice, whatever the
 * model would say now), or a generated one written with compare-and-set on an absent key, so two
 * processes that create the campaign at once keep the same goal.
 */
export async function establishGoal(
  store: Store,
  key: string,
  model: GoalModel,
  state: GameState,
  hidden: boolean,
): Promise<GoalResult> {
  const stored = await store.get(key);
  if (stored !== undefined) return readStored(stored);
  const generated = await generateGoal(model, state, hidden);
  if (!generated.ok) return generated;
  const written = await store.compareAndSet(key, null, {
    ...generated.goal,
    key_terms: [...generated.goal.key_terms],
  });
  if (written.ok) return generated;
  return readStored(await store.get(key));
}

/** Hides or shows the goal: the text stays as it was; the stored record is rewritten whole. */
export async function setGoalHidden(
  store: Store,
  key: string,
  goal: UltimateGoal,
  hidden: boolean,
): Promise<UltimateGoal> {
  const next = freezeGoal({ ...goal, is_hidden: hidden });
  await store.set(key, { ...next, key_terms: [...next.key_terms] });
  return next;
}

function checkProposal(
  answer: unknown,
  state: GameState,
): { ok: true; value: GoalProposal } | { ok: false; message: string } {
  const parsed = GoalProposalSchema.safeParse(answer);
  if (!parsed.success) {
    return {
      ok: false,
      message: parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; '),
    };
  }
  const text = parsed.data.ultimate_goal_text.toLowerCase();
  const places = Object.values(state.map.areas).flatMap((area) => [area.name, ...area.aliases]);
  if (!places.some((place) => text.includes(place.toLowerCase()))) {
    return { ok: false, message: 'The goal names no place of the map' };
  }
  return { ok: true, value: parsed.data };
}

/** A stored goal is checked before it is trusted; a record that is not one stops the campaign. */
function readStored(stored: unknown): GoalResult {
  const parsed = StoredGoalSchema.safeParse(stored);
  if (!parsed.success)
    return { ok: false, code: 'invalid_goal', message: 'The stored goal is not a goal record' };
  return { ok: true, goal: freezeGoal(parsed.data), generated: false };
}

function freezeGoal(goal: UltimateGoal): UltimateGoal {
  return Object.freeze({ ...goal, key_terms: Object.freeze([...goal.key_terms]) });
}
