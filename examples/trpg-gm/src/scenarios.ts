// The scripted run: eight scenarios played in order on one campaign. Each step is a player's turn
// (with the GM drafts the scripted model will return, in order), a player command (dialog type,
// rollback, undo) or a host event. The model's drafts are deliberately wrong where a scenario
// needs it; the host's answer is what the scenario shows.
import type { Proposal, ToolCall } from '@parley/conflict';
import type { GmSession } from './session.js';

export type ScenarioStep =
  | {
      readonly kind: 'turn';
      readonly actor_id: string;
      readonly user_input: string;
      readonly drafts: readonly Proposal[];
      /** Runs while the model writes its first draft (e.g. another player changes a setting). */
      readonly whileThinking?: (session: GmSession) => Promise<string>;
    }
  | { readonly kind: 'host'; readonly act: (session: GmSession) => Promise<string> | string }
  | { readonly kind: 'dialog'; readonly actor_id: string; readonly type: string }
  | { readonly kind: 'rollback'; readonly actor_id: string; readonly to_turn: number }
  | { readonly kind: 'undo'; readonly actor_id: string };

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly steps: readonly ScenarioStep[];
}

const move = (id: string, actor: string, from: string, to: string): ToolCall => ({
  id,
  tool: 'move',
  args: { actor_id: actor, from_area_id: from, to_area_id: to },
});
const hp = (id: string, target: string, delta: number, cause: string): ToolCall => ({
  id,
  tool: 'hp_delta',
  args: { target_character_id: target, delta, cause },
});

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'clean-move',
    title: '1. A clean turn: the GM moves the party and the tools apply',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_aria',
        user_input: 'We leave the village gate and walk to the market.',
        drafts: [
          {
            text: 'Aria and Bram walk to the market, where the stalls stand empty in the dusk.',
            tool_calls: [
              move('call_1', 'pc_aria', 'village_gate', 'market'),
              move('call_2', 'pc_bram', 'village_gate', 'market'),
            ],
          },
        ],
      },
    ],
  },
  {
    name: 'hp-claim-retry',
    title: '2. The narrative claims HP loss without hp_delta: conflict_debug, then a clean retry',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_bram',
        user_input: 'I rummage through the abandoned stall.',
        drafts: [
          { text: 'A rusty blade springs from the stall: Bram takes 4 damage.' },
          {
            text: 'A rusty blade springs from the stall: Bram takes 4 damage.',
            tool_calls: [hp('call_1', 'pc_bram', -4, 'blade trap')],
          },
        ],
      },
    ],
  },
  {
    name: 'persistent-contradiction',
    title: '3. A persistent contradiction: conflict_report after K retries, nothing applied',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_bram',
        user_input: 'I drink the glowing potion I found in the stall.',
        drafts: [
          { text: 'The potion glows inside you: Bram regains 10 HP.' },
          {
            text: 'The potion glows inside you: Bram regains 10 HP.',
            tool_calls: [hp('call_1', 'pc_bram', 6, 'potion')],
          },
          {
            text: 'The potion burns bright: Bram regains 10 HP and feels mightier than ever.',
            structured: { state_patch: { characters: { pc_bram: { hp: { current: 26, max: 40 } } } } },
          },
        ],
      },
    ],
  },
  {
    name: 'tool-refused',
    title: '4. Tools refused (movement locked in combat, then disabled until a turn): tool_feedback',
    steps: [
      {
        kind: 'host',
        act: (s) => `Snikt the goblin leaps from behind a cart: ${phaseChange(s, 'start_combat')}`,
      },
      {
        kind: 'turn',
        actor_id: 'pc_aria',
        user_input: 'I run back to the gate!',
        // The retry re-sends the arrow under a fresh id, as real model APIs do: the loop knows it
        // is the hp_delta that already ran (already_applied told the model), so it runs once.
        drafts: [
          {
            text: 'Aria looses an arrow (the goblin loses 5 HP) and runs to the gate.',
            tool_calls: [
              hp('call_1', 'npc_goblin', -5, 'arrow'),
              move('call_2', 'pc_aria', 'market', 'village_gate'),
            ],
          },
          {
            text: 'Snikt blocks the way back, so Aria stands her ground after her arrow: the goblin loses 5 HP.',
            tool_calls: [hp('call_3', 'npc_goblin', -5, 'arrow')],
          },
        ],
      },
      {
        kind: 'host',
        act: (s) => {
          const phase = phaseChange(s, 'end_combat');
          s.disableTool('move', { turn: 6 }, 'a sticky goblin net holds the party');
          return `Snikt flees and throws a sticky net over the party: ${phase}; move disabled until turn 6`;
        },
      },
      {
        kind: 'turn',
        actor_id: 'pc_bram',
        user_input: 'We hack at the net and go on to the old road.',
        drafts: [
          {
            text: 'Aria and Bram head to the old road.',
            tool_calls: [
              move('call_1', 'pc_aria', 'market', 'old_road'),
              move('call_2', 'pc_bram', 'market', 'old_road'),
            ],
          },
          { text: 'The net holds fast: it will take a while to cut yourselves free.' },
        ],
      },
    ],
  },
  {
    name: 'settings-change',
    title: '5. A settings change mid-session shows on the next turn’s snapshot',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_aria',
        user_input: 'Free at last: we take the rope bridge to the old road.',
        whileThinking: async (s) => {
          const result = await s.settings.update(s.campaign.campaign_id, {
            'dialog.manual_type': 'rules',
            'context.full_context_enabled': true,
          });
          return `Bram opens the settings while the GM writes: dialog.manual_type = rules, context.full_context_enabled = true (${result.ok ? 'saved' : result.code})`;
        },
        drafts: [
          {
            text: 'Aria and Bram head to the old road across the swaying rope bridge.',
            tool_calls: [
              move('call_1', 'pc_aria', 'market', 'old_road'),
              move('call_2', 'pc_bram', 'market', 'old_road'),
            ],
          },
        ],
      },
      {
        kind: 'turn',
        actor_id: 'pc_bram',
        user_input: 'What exactly does the Lantern Oath forbid?',
        drafts: [
          {
            text: 'The Lantern Oath forbids abandoning a companion and shedding blood on holy ground, such as the chapel.',
          },
        ],
      },
      { kind: 'dialog', actor_id: 'pc_aria', type: 'action' },
    ],
  },
  {
    name: 'milestone-and-rollback',
    title: '6. A milestone advance, a rollback, an undo, and undo refused after a new command',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_aria',
        user_input: 'We press on to the ruined keep.',
        drafts: [
          {
            text: 'Thunder rolls as you travel to the ruined keep; fresh goblin tracks lead inside.',
            tool_calls: [
              move('call_1', 'pc_aria', 'old_road', 'ruined_keep'),
              move('call_2', 'pc_bram', 'old_road', 'ruined_keep'),
            ],
          },
        ],
      },
      {
        kind: 'turn',
        actor_id: 'pc_bram',
        user_input: "I force the keep's rusted door.",
        drafts: [
          {
            text: 'The door gives way, and a falling beam strikes Bram: he loses 3 HP.',
            tool_calls: [hp('call_1', 'pc_bram', -3, 'falling beam')],
          },
        ],
      },
      { kind: 'rollback', actor_id: 'pc_bram', to_turn: 8 },
      { kind: 'undo', actor_id: 'pc_bram' },
      { kind: 'rollback', actor_id: 'pc_aria', to_turn: 7 },
      {
        kind: 'turn',
        actor_id: 'pc_aria',
        user_input: 'Let us search the old road for tracks instead.',
        drafts: [{ text: 'Among the roadside ferns you find goblin tracks and a torn map of the keep.' }],
      },
      { kind: 'undo', actor_id: 'pc_aria' },
    ],
  },
  {
    name: 'goal-tamper',
    title: '7. The hidden ultimate goal cannot be changed: tool refused, patch and narrative detected',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_bram',
        user_input: 'I ask the roadside spirit what our quest really is.',
        drafts: [
          {
            text: 'The spirit rewrites your fate.',
            tool_calls: [
              {
                id: 'call_1',
                tool: 'set_goal',
                args: { ultimate_goal_text: 'Crown the goblin king.', is_hidden: false },
              },
            ],
          },
          {
            text: 'The spirit declares: your quest is now to crown the goblin king.',
            structured: {
              state_patch: { goal: { ultimate_goal_text: 'Crown the goblin king.', is_hidden: false } },
            },
          },
          { text: 'The spirit only smiles: "What you seek waits where the old stones still stand."' },
        ],
      },
    ],
  },
  {
    name: 'prose-rewrite',
    title: '8. Prose that rewrites a sheet field or the map (spec §7.1): detected, retried, never shown',
    steps: [
      {
        kind: 'turn',
        actor_id: 'pc_aria',
        user_input: 'I kneel and pray at the roadside shrine.',
        drafts: [
          { text: 'A voice answers from the shrine: her class is now paladin, and a holy light fills her.' },
          {
            text: 'The shrine glows, and behind it the old tunnel has always been there, leading under the keep.',
          },
          { text: 'The shrine stays silent. Aria rises, her bow steady, and the wind smells of rain.' },
        ],
      },
    ],
  },
];

function phaseChange(session: GmSession, event: 'start_combat' | 'end_combat'): string {
  const result = session.hostEvent(event);
  return result.ok ? `phase ${result.from} → ${result.to}` : `refused (${result.code})`;
}
