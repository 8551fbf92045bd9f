// The campaign the scripted run plays: two player characters and two monsters on a five-area map,
// and a hidden ultimate goal.
import type { Clock } from '@parley/core';
import { createScriptedModel, type ScriptedModel } from '@parley/testing';
import type { AdvancePolicy, Campaign, DialogType } from './campaign.js';
import type { GoalRequest } from './goal.js';
import { NO_ROLLBACK } from './campaign.js';
import type { Character, GameState } from './world.js';

export const CAMPAIGN_ID = 'camp_lantern';

/**
 * What the scripted goal model answers when asked for the ultimate goal (spec §8.1): a real model
 * writes it from the world background, the map and the characters' backgrounds it is sent.
 */
export const GOAL_PROPOSAL = Object.freeze({
  ultimate_goal_text: 'Relight the Lantern of Dawn atop the ruined keep before the new moon.',
  key_terms: ['Lantern of Dawn', 'relight the lantern'],
});

/** The campaign's goal once the host accepted the proposal: hidden from the players. */
export const ULTIMATE_GOAL = Object.freeze({ ...GOAL_PROPOSAL, is_hidden: true });

/** A scripted goal model that answers `answers` in order (the proposal above by default). */
export function createGoalModel(
  clock: Clock,
  answers: readonly unknown[] = [GOAL_PROPOSAL],
): ScriptedModel<unknown, GoalRequest> {
  const steps = answers.map((reply) => ({ reply }));
  return createScriptedModel<unknown, GoalRequest>({ clock, name: 'goal model', steps });
}

/** The default policy of the scripted run: one advance every 7 turns. */
export const DEFAULT_ADVANCE_POLICY: AdvancePolicy = { policy: 'by_turn_count', every_n_turns: 7 };

function character(
  id: string,
  name: string,
  rest: Pick<Character, 'title' | 'background' | 'job' | 'race'> & {
    hp: number;
    str: number;
    dex: number;
    int: number;
  },
): Character {
  return {
    character_id: id,
    name,
    title: rest.title,
    background: rest.background,
    job: rest.job,
    race: rest.race,
    hp: { current: rest.hp, max: rest.hp },
    skills: [{ name: rest.job === 'ranger' ? 'archery' : 'shield wall', level: 2 }],
    attributes: { strength: rest.str, dexterity: rest.dex, intelligence: rest.int },
    status: { alive_state: 'alive', flags: [] },
  };
}

export function initialGameState(): GameState {
  return {
    world: {
      world_id: 'world_emberfall',
      background:
        'Emberfall Vale lost its dawn-light when the keep fell; since then the nights grow longer, and the Lantern Oath binds those who guard the vale.',
      rules: {
        lantern_oath: 'The Lantern Oath forbids abandoning a companion and shedding blood on holy ground.',
        magic: 'Low magic: potions are rare and unreliable.',
      },
    },
    map: {
      map_id: 'map_emberfall_vale',
      areas: {
        village_gate: { area_id: 'village_gate', name: 'village gate', aliases: ['gate'] },
        market: { area_id: 'market', name: 'market', aliases: ['market square', '集市'] },
        old_road: { area_id: 'old_road', name: 'old road', aliases: ['road', '古道'] },
        ruined_keep: { area_id: 'ruined_keep', name: 'ruined keep', aliases: ['keep', '废墟要塞'] },
        chapel: { area_id: 'chapel', name: 'chapel', aliases: ['holy ground'] },
      },
      paths: [
        { path_id: 'gate_market', from: 'village_gate', to: 'market' },
        { path_id: 'rope_bridge', from: 'market', to: 'old_road' },
        { path_id: 'keep_road', from: 'old_road', to: 'ruined_keep' },
        { path_id: 'chapel_lane', from: 'market', to: 'chapel' },
      ],
    },
    characters: {
      pc_aria: character('pc_aria', 'Aria', {
        title: 'Warden of the Vale',
        background: 'A scout raised by the village watch',
        job: 'ranger',
        race: 'human',
        hp: 18,
        str: 10,
        dex: 16,
        int: 12,
      }),
      pc_bram: character('pc_bram', 'Bram', {
        title: 'Oathbound',
        background: 'A dwarf who swore the Lantern Oath',
        job: 'fighter',
        race: 'dwarf',
        hp: 26,
        str: 16,
        dex: 9,
        int: 10,
      }),
      npc_goblin: character('npc_goblin', 'Snikt', {
        title: 'goblin raider',
        background: 'Scavenges the market at dusk',
        job: 'skirmisher',
        race: 'goblin',
        hp: 7,
        str: 8,
        dex: 14,
        int: 8,
      }),
    },
    positions: { pc_aria: 'village_gate', pc_bram: 'village_gate', npc_goblin: 'market' },
  };
}

export function initialCampaign(
  now: number,
  goal: Campaign['goal'],
  policy: AdvancePolicy = DEFAULT_ADVANCE_POLICY,
  dialogType: DialogType = 'action',
): Campaign {
  return {
    campaign_id: CAMPAIGN_ID,
    title: 'The Lantern of Emberfall',
    created_at: now,
    updated_at: now,
    selected: {
      world_id: 'world_emberfall',
      map_id: 'map_emberfall_vale',
      party_character_ids: ['pc_aria', 'pc_bram'],
      active_actor_id: 'pc_aria',
    },
    goal,
    milestone: {
      value: 0,
      last_advanced_at_turn: 0,
      advance_policy: policy,
      progress: { turns: 0, token_estimate: 0, summary_versions: 0 },
    },
    settings_snapshot: {},
    state_refs: {
      world_state_id: `${CAMPAIGN_ID}:world`,
      map_state_id: `${CAMPAIGN_ID}:map`,
      summary_state_id: `${CAMPAIGN_ID}:summary:v0`,
    },
    dialog: { dialog_type_selected: dialogType, future_route_decision: null },
    checkpoints: [],
    rollback_pending: NO_ROLLBACK,
  };
}
