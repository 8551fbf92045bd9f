// The V1 tools of spec §6.3, registered in the allowlist with an args schema and an enumeration of
// rejection reasons each (spec §10), and the state-dependent policies: movement is locked in
// combat, and no tool runs in a rules dialog. The executors are the only code that changes the
// authoritative state, and each change goes through `context.commit`, which records it.
import type { Clock } from '@parley/core';
import {
  createToolGate,
  defineTool,
  type ToolExecuteContext,
  type ToolGate,
  type ToolPolicy,
} from '@parley/tools';
import { z } from 'zod';
import type { DialogType } from './campaign.js';
import type { Phase } from './phase.js';
import { applyHpDelta, applyMove, findPath, type GameState, type WorldAction } from './world.js';

/** What the host hands the gate for each turn: the phase, the settings that matter, the state. */
export interface GmToolContext {
  readonly phase: Phase;
  readonly dialogType: DialogType;
  /** `rules.hp_zero_ends_game` from this turn's settings snapshot. */
  readonly hpZeroEndsGame: boolean;
  /** Reads the authoritative state as it is now. */
  read(): GameState;
  /** Replaces the state after a checked action, and records the call in the ledger. */
  commit(callId: string, action: WorldAction, next: GameState): void;
}

const MOVE_REASONS = [
  'unknown_actor',
  'actor_incapacitated',
  'not_in_from_area',
  'unknown_area',
  'no_path',
  'area_locked',
] as const;
const HP_REASONS = ['unknown_character', 'character_dead', 'zero_delta'] as const;

export const moveTool = defineTool({
  name: 'move',
  description: 'Moves one character from the area they are in to an adjacent area along a path.',
  args: z.object({
    actor_id: z.string().min(1),
    from_area_id: z.string().min(1),
    to_area_id: z.string().min(1),
    path_id: z.string().min(1).optional(),
  }),
  reasons: MOVE_REASONS,
  execute: (
    args,
    { call, context, reject }: ToolExecuteContext<GmToolContext, (typeof MOVE_REASONS)[number]>,
  ) => {
    const state = context.read();
    const actor = state.characters[args.actor_id];
    if (actor === undefined) return reject('unknown_actor', `There is no character "${args.actor_id}"`);
    if (actor.status.alive_state !== 'alive') {
      return reject('actor_incapacitated', `${actor.name} is ${actor.status.alive_state} and cannot move`);
    }
    const at = state.positions[args.actor_id];
    if (at !== args.from_area_id) {
      return reject('not_in_from_area', `${actor.name} is in ${at ?? 'no area'}, not ${args.from_area_id}`);
    }
    if (state.map.areas[args.to_area_id] === undefined) {
      return reject('unknown_area', `There is no area "${args.to_area_id}" on this map`);
    }
    const path = findPath(state, args.from_area_id, args.to_area_id, args.path_id);
    if (path === undefined) {
      return reject('no_path', `No path leads from ${args.from_area_id} to ${args.to_area_id}`);
    }
    const action: WorldAction = {
      tool: 'move',
      args: { actor_id: args.actor_id, from_area_id: args.from_area_id, to_area_id: args.to_area_id },
    };
    context.commit(call.id, action, applyMove(state, args.actor_id, args.to_area_id));
    return {
      actor_id: args.actor_id,
      from_area_id: args.from_area_id,
      to_area_id: args.to_area_id,
      path_id: path.path_id,
    };
  },
});

export const hpDeltaTool = defineTool({
  name: 'hp_delta',
  description: "Changes a character's current HP by delta (negative for damage), with the cause.",
  args: z.object({
    target_character_id: z.string().min(1),
    delta: z.number().int(),
    cause: z.string().min(1),
  }),
  reasons: HP_REASONS,
  execute: (
    args,
    { call, context, reject }: ToolExecuteContext<GmToolContext, (typeof HP_REASONS)[number]>,
  ) => {
    const state = context.read();
    const target = state.characters[args.target_character_id];
    if (target === undefined)
      return reject('unknown_character', `There is no character "${args.target_character_id}"`);
    if (target.status.alive_state === 'dead') return reject('character_dead', `${target.name} is dead`);
    if (args.delta === 0) return reject('zero_delta', 'A delta of 0 changes nothing; leave the call out');
    const action: WorldAction = {
      tool: 'hp_delta',
      args: { target_character_id: args.target_character_id, delta: args.delta },
      hp_zero_ends_game: context.hpZeroEndsGame,
    };
    const next = applyHpDelta(state, args.target_character_id, args.delta, context.hpZeroEndsGame);
    context.commit(call.id, action, next);
    const after = next.characters[args.target_character_id] ?? target; // the reducer keeps every id
    return {
      target_character_id: args.target_character_id,
      hp_before: target.hp.current,
      hp_after: after.hp.current,
      alive_state: after.status.alive_state,
    };
  },
});

export const GM_TOOLS = [moveTool, hpDeltaTool] as const;
export type GmToolName = (typeof GM_TOOLS)[number]['name'];

/** The policies of the allowlist that depend on the machine state and the settings snapshot. */
export const GM_POLICIES: readonly ToolPolicy<GmToolContext, GmToolName>[] = [
  {
    name: 'movement_lock',
    tools: ['move'],
    check: ({ context }) =>
      context.phase === 'combat'
        ? { message: 'Movement is locked during combat (区域移动锁未解除)', toolReason: 'area_locked' }
        : undefined,
  },
  {
    name: 'rules_dialog',
    check: ({ context }) =>
      context.dialogType === 'rules'
        ? { message: 'The dialog type is "rules": answer the question and change nothing' }
        : undefined,
  },
];

/** The gate: a rollback restores its memory and disabled tools from the checkpoint's snapshot. */
export function createGmGate(clock: Clock): ToolGate<GmToolName, GmToolContext> {
  return createToolGate({ tools: GM_TOOLS, allowlist: ['move', 'hp_delta'], policies: GM_POLICIES, clock });
}
