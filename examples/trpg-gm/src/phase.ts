// The turn phase: exploration, combat (movement locked), game over. The host moves it (an ambush,
// the end of a fight, a party wiped out under `rules.hp_zero_ends_game`); the model never does. Its
// JSON snapshot goes into every checkpoint, so a rollback restores the phase too.
import { defineMachine, type StateOf } from '@parley/fsm';

export const turnPhase = defineMachine({
  id: 'trpg-turn-phase',
  version: 1,
  initial: 'exploration',
  context: { combats: 0 },
  states: {
    exploration: {
      description: 'tools allowed',
      on: {
        start_combat: {
          target: 'combat',
          assign: (context: { combats: number }) => ({ combats: context.combats + 1 }),
        },
        party_defeated: 'game_over',
      },
    },
    combat: {
      description: 'move locked',
      on: { end_combat: 'exploration', party_defeated: 'game_over' },
    },
    game_over: { final: true },
  },
});

export type Phase = StateOf<typeof turnPhase>;
