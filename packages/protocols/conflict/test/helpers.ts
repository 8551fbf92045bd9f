import { createScriptedModel, type ModelStep, type ScriptedModel } from '@parley/testing';
import type { AttemptRequest, AuthoritativeField, GenerateContext, ToolCall } from '../src/index.js';

/** A scripted model typed for the loop: requests are `AttemptRequest`s, contexts `GenerateContext`s. */
export type Scripted<TOutput> = ScriptedModel<TOutput, AttemptRequest<unknown>, GenerateContext>;

/** A model that answers from steps (reply, respond, fail, hang), recording every call. */
export function scripted<TOutput>(
  steps: readonly ModelStep<TOutput, AttemptRequest<unknown>, GenerateContext>[],
): Scripted<TOutput> {
  return createScriptedModel({ steps });
}

/** Shorthand: a script of plain replies. */
export function answers<TOutput>(...values: TOutput[]): Scripted<TOutput> {
  return createScriptedModel({ replies: values });
}

export const hpCall = (id: string, delta: number): ToolCall => ({
  id,
  tool: 'hp_delta',
  args: { target_character_id: 'pc_1', delta, cause: 'arrow' },
});

export const moveCall = (id: string, to: string): ToolCall => ({
  id,
  tool: 'move',
  args: { actor_id: 'pc_1', from_area_id: 'market', to_area_id: to },
});

/** What a promise rejected with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A world for the field-claim detector: a ranger, no bridge, a river, rare magic. */
export interface World {
  readonly job: string;
  readonly race: string;
  readonly features: Readonly<Record<string, boolean>>;
  readonly magic: string;
}

export const world: World = {
  job: 'ranger',
  race: 'human',
  features: { bridge: false, river: true },
  magic: 'rare',
};

export const fields = (state: World): AuthoritativeField[] => [
  {
    field: 'characters.pc_aria.job',
    subjects: ['Aria', 'pc_aria', 'her', '艾莉亚'],
    names: ['class', 'job', '职业'],
    value: state.job,
    equivalents: ['游侠'],
  },
  { field: 'characters.pc_aria.race', subjects: ['Aria', 'her'], names: ['race'], value: state.race },
  ...Object.entries(state.features).map(([name, exists]) => ({
    field: `map.features.${name}`,
    names: [name, ...(name === 'bridge' ? ['桥'] : [])],
    value: exists,
  })),
  { field: 'world.rules.magic', names: ['magic'], value: state.magic, equivalents: ['scarce', 'unreliable'] },
];
