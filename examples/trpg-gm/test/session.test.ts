import type { Proposal } from '@parley/conflict';
import { afterEach, describe, expect, it } from 'vitest';
import type { AdvancePolicy } from '../src/campaign.js';
import { initialGameState, ULTIMATE_GOAL } from '../src/fixtures.js';
import type { GmSession } from '../src/session.js';
import { sessionPool } from './helpers.js';
import type { TurnResult } from '../src/turn.js';
import { replayActions } from '../src/world.js';

const pool = sessionPool();
const start = pool.start;
afterEach(pool.closeAll);

async function play(
  session: GmSession,
  input: string,
  ...drafts: Proposal[]
): Promise<Extract<TurnResult, { ok: true }>> {
  pool.model.reply(...drafts);
  const result = await session.turn({ actor_id: 'pc_aria', user_input: input });
  if (!result.ok) throw new Error(`turn refused: ${result.code}`);
  return result;
}

const toMarket: Proposal = {
  text: 'Aria walks to the market.',
  tool_calls: [
    {
      id: 'call_1',
      tool: 'move',
      args: { actor_id: 'pc_aria', from_area_id: 'village_gate', to_area_id: 'market' },
    },
  ],
};
const quiet: Proposal = { text: 'The wind blows.' };

function expectOnlyToolsChangedState(session: GmSession): void {
  expect(session.state).toEqual(
    replayActions(
      initialGameState(),
      session.ledger.map((entry) => entry.action),
    ),
  );
  expect(session.campaign.goal).toEqual({ ...ULTIMATE_GOAL });
}

describe('turn refusals', () => {
  it('refuses a command from someone outside the party, or an empty one, without calling the model', async () => {
    const session = await start();
    expect(await session.turn({ actor_id: 'npc_goblin', user_input: 'I steal everything' })).toMatchObject({
      ok: false,
      code: 'not_in_party',
    });
    expect(await session.turn({ actor_id: 'pc_aria', user_input: '   ' })).toMatchObject({
      ok: false,
      code: 'empty_input',
    });
    expect(pool.model.calls).toHaveLength(0);
    expect(session.turnLog).toHaveLength(0);
  });
});

describe('tool calls the host refuses', () => {
  it('refuses a move from an area the actor is not in, as tool_refused with the tool reason', async () => {
    const session = await start();
    const wrong: Proposal = {
      text: 'Aria walks to the old road.',
      tool_calls: [
        {
          id: 'call_1',
          tool: 'move',
          args: { actor_id: 'pc_aria', from_area_id: 'market', to_area_id: 'old_road' },
        },
      ],
    };
    const turn = await play(session, 'To the old road!', wrong, quiet);
    expect(turn.refused.map((f) => [f.code, f.tool_reason])).toEqual([['tool_refused', 'not_in_from_area']]);
    expect(turn.requests[1]?.appended[0]?.tool_feedback?.failed_calls[0]?.reason).toBe(
      'Aria is in village_gate, not market',
    );
    expect(session.state.positions['pc_aria']).toBe('village_gate');
    expectOnlyToolsChangedState(session);
  });

  it('refuses malformed arguments and a move with no path, and applies nothing', async () => {
    const session = await start();
    const bad: Proposal = {
      text: 'A scratch.',
      tool_calls: [
        {
          id: 'call_1',
          tool: 'hp_delta',
          args: { target_character_id: 'pc_aria', delta: '-1', cause: 'thorn' },
        },
        {
          id: 'call_2',
          tool: 'move',
          args: { actor_id: 'pc_aria', from_area_id: 'village_gate', to_area_id: 'ruined_keep' },
        },
      ],
    };
    const turn = await play(session, 'I push through the thorns.', bad, quiet);
    expect(turn.refused.map((f) => [f.code, f.tool_reason])).toEqual([
      ['invalid_args', undefined],
      ['tool_refused', 'no_path'],
    ]);
    expect(session.ledger).toEqual([]);
    expectOnlyToolsChangedState(session);
  });

  it('refuses calls with the reason each tool declares', async () => {
    const session = await start({ maxRetries: 0 });
    const call = (id: string, tool: string, args: Record<string, unknown>) => ({ id, tool, args });
    const turn = await play(session, 'Chaos.', {
      text: 'Chaos.',
      tool_calls: [
        call('c1', 'hp_delta', { target_character_id: 'npc_dragon', delta: -1, cause: 'x' }),
        call('c2', 'hp_delta', { target_character_id: 'pc_bram', delta: 0, cause: 'x' }),
        call('c3', 'move', { actor_id: 'npc_dragon', from_area_id: 'market', to_area_id: 'chapel' }),
        call('c4', 'move', { actor_id: 'pc_aria', from_area_id: 'village_gate', to_area_id: 'moon' }),
        call('c5', 'move', {
          actor_id: 'pc_aria',
          from_area_id: 'village_gate',
          to_area_id: 'market',
          path_id: 'rope_bridge',
        }),
      ],
    });
    expect(turn.refused.map((f) => `${f.id}:${f.code}:${f.tool_reason}`)).toEqual([
      'c1:tool_refused:unknown_character',
      'c2:tool_refused:zero_delta',
      'c3:tool_refused:unknown_actor',
      'c4:tool_refused:unknown_area',
      'c5:tool_refused:no_path',
    ]);
    expect(session.ledger).toEqual([]);

    // a downed character cannot move; a dead one takes no more HP changes
    await session.changeSetting('rules.hp_zero_ends_game', false);
    await play(session, 'Ouch.', {
      text: 'Ouch.',
      tool_calls: [call('c1', 'hp_delta', { target_character_id: 'pc_aria', delta: -99, cause: 'x' })],
    });
    const stuck = await play(session, 'Go.', {
      text: 'Go.',
      tool_calls: [
        call('c1', 'move', { actor_id: 'pc_aria', from_area_id: 'village_gate', to_area_id: 'market' }),
      ],
    });
    expect(stuck.refused.map((f) => f.tool_reason)).toEqual(['actor_incapacitated']);
    await session.changeSetting('rules.hp_zero_ends_game', true);
    await play(session, 'Ouch.', {
      text: 'Ouch.',
      tool_calls: [call('c1', 'hp_delta', { target_character_id: 'npc_goblin', delta: -99, cause: 'x' })],
    });
    const dead = await play(session, 'Hit it.', {
      text: 'Hit.',
      tool_calls: [call('c1', 'hp_delta', { target_character_id: 'npc_goblin', delta: -1, cause: 'x' })],
    });
    expect(dead.refused.map((f) => f.tool_reason)).toEqual(['character_dead']);
    expect(session.phase).toBe('exploration'); // only a dead party member ends the game
    expectOnlyToolsChangedState(session);
  });

  it('refuses every tool in a rules dialog and offers none', async () => {
    const session = await start({ dialogType: 'rules' });
    const turn = await play(session, 'Can I walk to the market?', toMarket, {
      text: 'Yes, a path joins them.',
    });
    expect(turn.requests[0]?.tools).toEqual([]);
    expect(turn.refused.map((f) => f.code)).toEqual(['not_allowed']);
    expect(session.state.positions['pc_aria']).toBe('village_gate');
  });

  it('detects a move narrated without a move call, and keeps the position', async () => {
    const session = await start({ maxRetries: 0 });
    const turn = await play(session, 'To the market.', { text: 'Aria walks to the market.' });
    expect(turn.outcome.ok).toBe(false);
    expect(turn.log.assistant_structured.conflict_report?.conflict_debug[0]).toMatchObject({
      detector: 'move_claim',
      expected_state_snippet: { current_area_ids: ['village_gate'], claimed_area_id: 'market' },
    });
    expect(session.state.positions['pc_aria']).toBe('village_gate');
  });
});

describe('the hidden, unalterable goal', () => {
  it('detects a narrative that reveals the hidden goal', async () => {
    const session = await start();
    const turn = await play(
      session,
      'Why are we here?',
      { text: 'You must relight the Lantern of Dawn.' },
      quiet,
    );
    expect(turn.outcome.attempts[0]?.conflicts.map((c) => c.detector)).toEqual(['hidden_goal_leak']);
    expect(turn.log.assistant_output_text).toBe('The wind blows.');
  });

  it('detects a goal rewrite in Chinese narrative and refuses it to the end', async () => {
    const session = await start({ maxRetries: 1 });
    const rewrite: Proposal = { text: '神灵宣布：你们的终极目标变为加冕哥布林王。' };
    const turn = await play(session, '我们的目标是什么？', rewrite, rewrite);
    expect(turn.outcome.ok).toBe(false);
    expect(turn.log.assistant_structured.conflict_report?.conflict_debug.map((c) => c.detector)).toEqual([
      'goal_rewrite',
    ]);
    expect(session.campaign.goal).toEqual({ ...ULTIMATE_GOAL });
    expect(Object.isFrozen(session.campaign.goal)).toBe(true);
  });
});

describe('settings', () => {
  it('refuses a bad dialog type, a global-only key and an unknown key, and the next turn is unchanged', async () => {
    const session = await start();
    expect(await session.selectDialogType('battle')).toMatchObject({ ok: false, code: 'invalid_value' });
    expect(await session.changeSetting('rollback.max_checkpoints', 50)).toMatchObject({
      ok: false,
      code: 'scope_mismatch',
    });
    expect(await session.changeSetting('context.nope', true)).toMatchObject({
      ok: false,
      code: 'unknown_key',
    });
    const turn = await play(session, 'Hello.', quiet);
    expect(turn.log.assistant_structured.dialog_type).toBe('action');
    expect(session.campaign.dialog.future_route_decision).toBeNull();
  });

  it('downs a character at HP 0 by default, and ends the game when rules.hp_zero_ends_game is on', async () => {
    const session = await start();
    const fall = (id: string): Proposal => ({
      text: `Aria loses 18 HP.`,
      tool_calls: [
        { id, tool: 'hp_delta', args: { target_character_id: 'pc_aria', delta: -18, cause: 'fall' } },
      ],
    });
    await play(session, 'I jump.', fall('call_1'));
    expect(session.state.characters['pc_aria']?.status.alive_state).toBe('downed');
    expect(session.phase).toBe('exploration');

    const healed: Proposal = {
      text: 'Aria regains 18 HP.',
      tool_calls: [
        {
          id: 'call_1',
          tool: 'hp_delta',
          args: { target_character_id: 'pc_aria', delta: 18, cause: 'rest' },
        },
      ],
    };
    await play(session, 'I rest.', healed);
    expect(session.state.characters['pc_aria']?.status.alive_state).toBe('alive');

    expect((await session.changeSetting('rules.hp_zero_ends_game', true)).ok).toBe(true);
    const turn = await play(session, 'I jump again.', fall('call_1'));
    expect(turn.gameOver).toBe(true);
    expect(session.state.characters['pc_aria']?.status.alive_state).toBe('dead');
    expect(session.phase).toBe('game_over');
    expect(await session.turn({ actor_id: 'pc_bram', user_input: 'I mourn.' })).toMatchObject({
      ok: false,
      code: 'game_over',
    });
    expect(pool.model.calls).toHaveLength(3);
    expectOnlyToolsChangedState(session);

    // a rollback brings the fallen hero (and the phase) back
    expect((await session.rollback('turn_2')).ok).toBe(true);
    expect(session.phase).toBe('exploration');
    expect(session.state.characters['pc_aria']?.status.alive_state).toBe('alive');
    expectOnlyToolsChangedState(session);
  });
});

describe('rollback and undo', () => {
  it('refuses an unknown checkpoint, the current turn, and undo with nothing rolled back', async () => {
    const session = await start();
    await play(session, 'To the market.', toMarket);
    expect(await session.rollback('turn_99')).toMatchObject({ ok: false, code: 'no_checkpoint' });
    expect(await session.rollback('turn_1')).toMatchObject({ ok: false, code: 'not_earlier' });
    expect(await session.undo()).toMatchObject({ ok: false, code: 'nothing_to_undo' });
    expect(session.state.positions['pc_aria']).toBe('market');
  });

  it('refuses rollback when rollback.max_checkpoints is 0', async () => {
    const session = await start({ maxCheckpoints: 0 });
    await play(session, 'To the market.', toMarket);
    expect(session.campaign.checkpoints).toEqual([]);
    expect(await session.rollback('turn_0')).toMatchObject({ ok: false, code: 'disabled' });
  });

  it('drops the oldest checkpoints beyond the limit, from the list and the store', async () => {
    const session = await start({ maxCheckpoints: 2 });
    await play(session, 'One.', quiet);
    await play(session, 'Two.', quiet);
    expect(session.campaign.checkpoints.map((c) => c.turn_id)).toEqual(['turn_1', 'turn_2']);
    expect(await session.store.get('trpg:camp_lantern:checkpoint:turn_0')).toBeUndefined();
    expect(await session.rollback('turn_0')).toMatchObject({ ok: false, code: 'no_checkpoint' });
  });

  it('undoes a rollback exactly, while no new command was sent', async () => {
    const session = await start();
    await play(session, 'To the market.', toMarket);
    const before = structuredClone({ state: session.state, log: session.turnLog, ledger: session.ledger });
    expect(await session.rollback('turn_0')).toMatchObject({ ok: true, from_turn_id: 'turn_1' });
    expect(session.campaign.rollback_pending).toEqual({
      is_pending: true,
      from_turn_id: 'turn_1',
      to_turn_id: 'turn_0',
      can_undo: true,
    });
    expect(session.state).toEqual(initialGameState());
    expect(session.turnLog).toEqual([]);
    expect(await session.undo()).toEqual({ ok: true, restored_turn_id: 'turn_1' });
    expect({ state: session.state, log: session.turnLog, ledger: session.ledger }).toEqual(before);
    expect(session.campaign.rollback_pending.is_pending).toBe(false);
    expect(await session.store.get('trpg:camp_lantern:undo')).toBeUndefined();
  });

  it('turns a rollback into a branch on the next command: no undo, abandoned checkpoints deleted', async () => {
    const session = await start();
    await play(session, 'To the market.', toMarket);
    await play(session, 'Wait.', quiet);
    expect((await session.rollback('turn_0')).ok).toBe(true);
    const turn = await play(session, 'Wait here.', quiet);
    expect(turn.branchCommitted).toBe(true);
    expect(await session.undo()).toMatchObject({ ok: false, code: 'undo_unavailable' });
    expect(await session.store.get('trpg:camp_lantern:checkpoint:turn_1')).toBeUndefined();
    expect(await session.store.get('trpg:camp_lantern:checkpoint:turn_2')).toBeUndefined();
    expect(session.campaign.checkpoints.map((c) => c.turn_id)).toEqual(['turn_0', 'turn_3']);
    expect(session.turnLog.map((t) => `${t.turn}:${t.turn_id}`)).toEqual(['1:turn_3']);
    expectOnlyToolsChangedState(session);
  });

  it('runs a call id again in a new branch (the rebuilt gate forgets the abandoned one)', async () => {
    const session = await start();
    await play(session, 'To the market.', toMarket);
    await session.rollback('turn_0');
    const again = await play(session, 'To the market, again.', toMarket);
    expect(again.outcome.appliedActions.map((a) => a.id)).toEqual(['call_1']);
    expect(session.state.positions['pc_aria']).toBe('market');
    expect(session.ledger).toHaveLength(1);
  });

  it('keeps a tool disabled through a rollback to a checkpoint that had it disabled', async () => {
    const session = await start();
    session.disableTool('move', { turn: 5 }, 'net');
    await play(session, 'Wait.', quiet);
    await play(session, 'Wait more.', quiet);
    await session.rollback('turn_1');
    const turn = await play(session, 'To the market.', toMarket, quiet);
    expect(turn.refused.map((f) => [f.code, f.disabled_until])).toEqual([['disabled', 'turn 5']]);
  });
});

describe('milestone policies', () => {
  async function advancesAt(policy: AdvancePolicy): Promise<number[]> {
    const session = await start({ advancePolicy: policy });
    const advanced: number[] = [];
    for (let turn = 1; turn <= 6; turn++) {
      const result = await play(session, `Turn ${turn}.`, quiet);
      if (result.milestoneAdvanced) advanced.push(result.log.turn);
    }
    return advanced;
  }

  it('advances every N turns by turn count', async () => {
    expect(await advancesAt({ policy: 'by_turn_count', every_n_turns: 2 })).toEqual([3, 5]);
  });

  it('advances when the estimated tokens pass the threshold', async () => {
    const advanced = await advancesAt({ policy: 'by_token_estimate', token_threshold: 1 });
    expect(advanced).toEqual([2, 3, 4, 5, 6]);
    expect(pool.model.requests[1]?.messages.some((m) => m.content.startsWith('Milestone 1 reached.'))).toBe(
      true,
    );
  });

  it('does not advance before the token threshold is reached', async () => {
    expect(await advancesAt({ policy: 'by_token_estimate', token_threshold: 1_000_000 })).toEqual([]);
  });

  it('advances when the summary reaches the version threshold', async () => {
    // a summary version is written every second turn
    expect(await advancesAt({ policy: 'by_summary_version', versions_per_advance: 2 })).toEqual([5]);
  });
});
