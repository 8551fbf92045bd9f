import { createScriptedModel, type ModelStep, type ScriptedModel } from '@parley/testing';
import {
  type AttemptRequest,
  type AuthoritativeField,
  type Claim,
  type Detector,
  defineDetector,
  findClaims,
  type GenerateContext,
  type ToolCall,
} from '../src/index.js';

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

/**
 * A detector of the tests' small game, on the public API: each claim `patterns` find in the text
 * needs its own effect of `tool` (one to one, from the turn's `effects`) that `settles` it.
 */
export function defineCallClaimDetector(init: {
  readonly name: string;
  readonly tool: string;
  readonly patterns: readonly RegExp[];
  readonly settles: (claim: Claim, args: Readonly<Record<string, unknown>>) => boolean;
  readonly expected: (claim: Claim) => string;
}): Detector<unknown> {
  const patterns = init.patterns.map((pattern) => ({ pattern }));
  return defineDetector({
    name: init.name,
    tools: [init.tool],
    detect(proposal, _state, { effects }) {
      const left = effects.filter((call) => call.tool === init.tool);
      return findClaims(proposal.text, patterns).flatMap((claim) => {
        const at = left.findIndex((call) => init.settles(claim, call.args ?? {}));
        if (at >= 0) {
          left.splice(at, 1);
          return [];
        }
        return [
          {
            expected_state_snippet: { changes_only_via: init.tool },
            mismatch_reason: `The text claims "${claim.text}" but no ${init.tool} call ${init.expected(claim)} settles it`,
            instructions: `Request a ${init.tool} tool call for every change you describe, or describe none.`,
            evidence: claim.text,
          },
        ];
      });
    },
  });
}

/** "You lose 5 HP" / "HP -5" / "你受到5点伤害" needs an `hp_delta` call with delta -5. */
export const hpClaims = (): Detector<unknown> =>
  defineCallClaimDetector({
    name: 'hp_claim',
    tool: 'hp_delta',
    patterns: [
      /\b(?:lose|take)s? (?<amount>\d+) (?:HP|damage)\b/i,
      /\bHP ?- ?(?<amount>\d+)\b/,
      /(?:受到|失去)(?<amount>\d+)点(?:伤害|生命)/u,
    ],
    settles: (claim, args) => args['delta'] === -Number(claim.groups['amount']),
    expected: (claim) => `with delta -${Number(claim.groups['amount'])}`,
  });

/** "You head to the vault" / "来到金库" needs a `move` call to that area. */
export const moveClaims = (): Detector<unknown> =>
  defineCallClaimDetector({
    name: 'move_claim',
    tool: 'move',
    patterns: [
      /\b(?:move|head|walk|go|goes|moves|heads|walks) (?:in)?to the (?<area>\w+)/i,
      /(?:来到|进入)(?<area>\p{Script=Han}+)/u,
    ],
    settles: (claim, args) => args['to_area_id'] === AREAS[claim.groups['area'] ?? ''],
    expected: (claim) => `to ${AREAS[claim.groups['area'] ?? ''] ?? claim.groups['area']}`,
  });

const AREAS: Readonly<Record<string, string>> = {
  tavern: 'tavern',
  vault: 'vault',
  garden: 'garden',
  market: 'market',
  酒馆: 'tavern',
  金库: 'vault',
};

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
