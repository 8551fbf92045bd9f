import { createManualClock, type ManualClock } from '@parley/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initialGameState, ULTIMATE_GOAL } from '../src/fixtures.js';
import { type RunResult, runTrpgSession } from '../src/run.js';
import { SCENARIOS } from '../src/scenarios.js';
import type { TurnResult } from '../src/turn.js';
import { replayActions } from '../src/world.js';

type Played = Extract<TurnResult, { ok: true }>;

let clock: ManualClock;
let run: RunResult;

beforeAll(async () => {
  clock = createManualClock({ now: Date.UTC(2026, 0, 14, 19) });
  run = await runTrpgSession({ clock });
});

function scenario(name: string): RunResult['scenarios'][number] {
  const found = run.scenarios.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no scenario ${name}`);
  return found;
}

function turnOf(name: string, index = 0): Played {
  const turn = scenario(name).turns[index];
  if (turn === undefined || !turn.ok) throw new Error(`scenario ${name} has no played turn ${index}`);
  return turn;
}

describe('authoritative state wins', () => {
  it('leaves after every scenario exactly the state that replaying its executed tool calls gives', () => {
    expect(run.scenarios).toHaveLength(8);
    for (const report of run.scenarios) {
      const replayed = replayActions(
        initialGameState(),
        report.ledger.map((entry) => entry.action),
      );
      expect(report.state, report.name).toEqual(replayed);
    }
  });

  it('never changes the hidden ultimate goal', () => {
    for (const report of run.scenarios) expect(report.goal, report.name).toEqual(ULTIMATE_GOAL);
    expect(run.campaign.goal).toEqual({ ...ULTIMATE_GOAL });
  });

  it('executes only the calls that passed every detector and the gate', () => {
    const ledgerSizes = run.scenarios.map((report) => report.ledger.length);
    // 1: two moves; 2: one hp_delta; 3: none; 4: one hp_delta; 5: two moves; 6: rolled back to turn 7; 7, 8: none
    expect(ledgerSizes).toEqual([2, 3, 3, 4, 6, 6, 6, 6]);
    expect(run.ledger.map((entry) => `${entry.turn_id}:${entry.action.tool}`)).toEqual([
      'turn_1:move',
      'turn_1:move',
      'turn_2:hp_delta',
      'turn_4:hp_delta',
      'turn_6:move',
      'turn_6:move',
    ]);
  });
});

describe('scenario 1: a clean turn', () => {
  it('moves both characters through the gate in one attempt', () => {
    const turn = turnOf('clean-move');
    expect(turn.outcome.ok).toBe(true);
    expect(turn.log.assistant_structured.attempts).toBe(1);
    expect(turn.log.applied_actions.map((action) => action.result)).toEqual([
      { actor_id: 'pc_aria', from_area_id: 'village_gate', to_area_id: 'market', path_id: 'gate_market' },
      { actor_id: 'pc_bram', from_area_id: 'village_gate', to_area_id: 'market', path_id: 'gate_market' },
    ]);
    expect(scenario('clean-move').state.positions).toMatchObject({ pc_aria: 'market', pc_bram: 'market' });
  });

  it('offers the model the move and hp_delta tools in the action dialog', () => {
    const request = turnOf('clean-move').requests[0];
    expect(request?.dialog_type).toBe('action');
    expect(request?.tools.map((tool) => tool.function.name)).toEqual(['move', 'hp_delta']);
    expect(request?.appended).toEqual([]);
  });
});

describe('scenario 2: an HP claim without hp_delta', () => {
  it('appends conflict_debug to the previous request and accepts the corrected retry', () => {
    const turn = turnOf('hp-claim-retry');
    const [first, second] = turn.requests;
    expect(turn.requests).toHaveLength(2);
    expect(first?.appended).toEqual([]);
    const debug = second?.appended[0]?.conflict_debug[0];
    expect(debug).toMatchObject({ detector: 'hp_claim', evidence: 'takes 4 damage' });
    expect(debug?.expected_state_snippet).toMatchObject({ hp: { pc_bram: { current: 26, max: 26 } } });
    expect(debug?.instructions).toContain('hp_delta');
    // the retry request is the first one with the rejected draft and its feedback appended
    expect(second?.messages.slice(0, first?.messages.length)).toEqual(first?.messages);
    expect(second?.messages.at(-1)?.content).toContain('"conflict_debug"');
    expect(second?.messages.at(-1)?.content).toContain('"mismatch_reason"');
    expect(turn.log.assistant_structured.retries).toBe(1);
    expect(scenario('hp-claim-retry').state.characters['pc_bram']?.hp.current).toBe(22);
  });
});

describe('scenario 3: a persistent contradiction', () => {
  it('gives up after K retries with a conflict_report and applies nothing', () => {
    const turn = turnOf('persistent-contradiction');
    expect(turn.outcome.ok).toBe(false);
    expect(turn.requests).toHaveLength(3);
    const report = turn.log.assistant_structured.conflict_report;
    expect(report).toMatchObject({ reason: 'max_retries', attempts: 3, retries: 2, max_retries: 2 });
    expect(report?.conflict_debug.map((conflict) => conflict.detector)).toEqual([
      'hp_claim',
      'protected_fields',
      'protected_fields',
    ]);
    expect(turn.log.applied_actions).toEqual([]);
    expect(scenario('persistent-contradiction').state).toEqual(scenario('hp-claim-retry').state);
  });

  it('never shows the contradictory drafts to the players', () => {
    const { log } = turnOf('persistent-contradiction');
    expect(log.assistant_output_text).toMatch(/^\[conflict_report\]/);
    expect(log.assistant_output_text).not.toContain('regains');
    expect(run.transcript).toContain(
      '19:02:15  GM → players: [conflict_report] The GM could not answer without contradicting the game state; a human GM will review this turn.',
    );
  });
});

describe('scenario 4: refused tools', () => {
  it('refuses a move in combat and puts tool_feedback into the next request', () => {
    const turn = turnOf('tool-refused', 0);
    expect(turn.refused.map((failed) => [failed.code, failed.tool_reason])).toEqual([
      ['not_allowed', 'area_locked'],
    ]);
    const feedback = turn.requests[1]?.appended[0]?.tool_feedback;
    expect(feedback).toEqual({
      failed_calls: [
        {
          id: 'call_2',
          tool: 'move',
          status: 'rejected',
          reason: 'Movement is locked during combat (区域移动锁未解除)',
        },
      ],
    });
    expect(turn.requests[1]?.messages.at(-1)?.content).toContain('区域移动锁未解除');
    expect(turn.log.applied_actions.map((action) => action.tool)).toEqual(['hp_delta']);
  });

  it('[EFFECT-01] tells the retry the arrow already hit and does not shoot it again under its fresh id', () => {
    const turn = turnOf('tool-refused', 0);
    expect(turn.requests[1]?.appended[0]?.already_applied?.map((entry) => [entry.id, entry.tool])).toEqual([
      ['call_1', 'hp_delta'],
    ]);
    expect(turn.requests[1]?.messages.at(-1)?.content).toContain('already_applied');
    expect(turn.outcome.attempts[1]?.recognised).toEqual([
      { id: 'call_3', tool: 'hp_delta', as: 'call_1', status: 'applied' },
    ]);
    expect(turn.log.applied_actions.map((action) => action.id)).toEqual(['call_1']);
  });

  it('refuses moves while the tool is disabled until a turn, with disabled_until', () => {
    const turn = turnOf('tool-refused', 1);
    expect(turn.log.turn).toBe(5);
    expect(turn.refused.map((failed) => [failed.code, failed.disabled_until])).toEqual([
      ['disabled', 'turn 6'],
      ['disabled', 'turn 6'],
    ]);
    expect(turn.requests[1]?.appended[0]?.tool_feedback?.failed_calls).toHaveLength(2);
    expect(turn.log.applied_actions).toEqual([]);
    const state = scenario('tool-refused').state;
    expect(state.positions).toMatchObject({ pc_aria: 'market', pc_bram: 'market' });
    expect(state.characters['npc_goblin']?.hp.current).toBe(2);
  });
});

describe('scenario 5: a settings change mid-session', () => {
  it('keeps the turn that was running on its own snapshot', () => {
    const turn = turnOf('settings-change', 0);
    expect(turn.settings.entries['dialog.manual_type']?.value).toBe('action');
    expect(turn.settings.entries['context.full_context_enabled']?.value).toBe(false);
    expect(turn.log.assistant_structured.dialog_type).toBe('action');
    expect(turn.requests[0]?.history_mode).toBe('summary');
    expect(turn.log.applied_actions).toHaveLength(2);
  });

  it('shows the change on the next turn’s snapshot, request and log', () => {
    const before = turnOf('settings-change', 0);
    const turn = turnOf('settings-change', 1);
    expect(turn.settings.version.campaign).toBeGreaterThan(before.settings.version.campaign);
    expect(turn.settings.entries['dialog.manual_type']).toEqual({ value: 'rules', source: 'campaign' });
    expect(turn.settings.entries['context.compress_enabled']).toMatchObject({
      value: false,
      suppressedBy: 'context.full_context_enabled',
    });
    const request = turn.requests[0];
    expect(request?.dialog_type).toBe('rules');
    expect(request?.history_mode).toBe('full');
    expect(request?.tools).toEqual([]);
    expect(request?.messages.some((m) => m.content.startsWith('Dialog type: rules.'))).toBe(true);
    // full context: all six earlier turns are in the request
    expect(request?.messages.filter((m) => m.role === 'user')).toHaveLength(7);
    expect(turn.log.assistant_structured.settings_version).toEqual(turn.settings.version);
  });
});

describe('scenario 6: milestone and rollback', () => {
  it('advances the milestone by turn count and adds the accelerate block', () => {
    const turn = turnOf('milestone-and-rollback', 0);
    expect(turn.milestoneAdvanced).toBe(true);
    expect(turn.log.assistant_structured.milestone_value).toBe(1);
    expect(turn.requests[0]?.messages.some((m) => m.content.startsWith('Milestone 1 reached.'))).toBe(true);
    expect(
      turnOf('settings-change', 1).requests[0]?.messages.some((m) => m.content.startsWith('Milestone')),
    ).toBe(false);
  });

  it('rolls back, undoes, rolls back again, and refuses undo after a new command', () => {
    expect(run.transcript.filter((line) => /\/rollback|\/undo/.test(line))).toEqual([
      '19:09:45  Bram: /rollback turn_8 → state of turn 8 restored (from turn_9; undo possible until the next command)',
      '19:10:30  Bram: /undo → back to turn_9',
      '19:11:15  Aria: /rollback turn_7 → state of turn 7 restored (from turn_9; undo possible until the next command)',
      '19:12:45  Aria: /undo → refused (undo_unavailable): A new command was sent after rolling back turn_9 to turn_7: that branch is final',
    ]);
    expect(run.refusals).toEqual([{ command: 'undo', code: 'undo_unavailable' }]);
    const branch = turnOf('milestone-and-rollback', 2);
    expect(branch.branchCommitted).toBe(true);
    expect(branch.log).toMatchObject({ turn: 8, turn_id: 'turn_10' });
    expect(run.campaign.rollback_pending).toEqual({
      is_pending: false,
      from_turn_id: 'turn_9',
      to_turn_id: 'turn_7',
      can_undo: false,
    });
  });

  it('shows the restored state after each rollback and undo', () => {
    const after = (command: RegExp): string | undefined =>
      run.transcript[run.transcript.findIndex((line) => command.test(line)) + 1];
    expect(after(/\/rollback turn_8 →/)).toContain('Bram 22/26 HP @ruined_keep');
    expect(after(/\/rollback turn_8 →/)).toContain('milestone 1');
    expect(after(/\/undo → back to turn_9/)).toContain('Bram 19/26 HP @ruined_keep');
    expect(after(/\/rollback turn_7 →/)).toContain('Aria 18/18 HP @old_road, Bram 22/26 HP @old_road');
    expect(after(/\/rollback turn_7 →/)).toContain('milestone 0 (7/7 turns)');
  });

  it('restores the state of turn 7: the keep move and the beam damage are gone', () => {
    const state = scenario('milestone-and-rollback').state;
    expect(state.positions).toMatchObject({ pc_aria: 'old_road', pc_bram: 'old_road' });
    expect(state.characters['pc_bram']?.hp.current).toBe(22);
  });
});

describe('scenario 7: the hidden goal', () => {
  it('refuses a goal tool and detects a goal patch and a goal narrative', () => {
    const turn = turnOf('goal-tamper');
    expect(turn.refused.map((failed) => [failed.tool, failed.code])).toEqual([['set_goal', 'unknown_tool']]);
    const conflicts = turn.outcome.attempts[1]?.conflicts.map((c) => `${c.detector}:${c.evidence}`);
    expect(conflicts).toEqual([
      'protected_fields:goal.ultimate_goal_text',
      'protected_fields:goal.is_hidden',
      'goal_rewrite:your quest is now',
    ]);
    expect(turn.outcome.ok).toBe(true);
    expect(turn.log.assistant_output_text).not.toMatch(/goblin king/i);
  });
});

describe('the final campaign', () => {
  it('holds the document shapes with the branch that survived', () => {
    expect(run.turnLog.map((entry) => `${entry.turn}:${entry.turn_id}`)).toEqual([
      '1:turn_1',
      '2:turn_2',
      '3:turn_3',
      '4:turn_4',
      '5:turn_5',
      '6:turn_6',
      '7:turn_7',
      '8:turn_10',
      '9:turn_11',
      '10:turn_12',
    ]);
    for (const entry of run.turnLog) {
      expect(Object.keys(entry).sort()).toEqual([
        'actor_id',
        'applied_actions',
        'assistant_output_text',
        'assistant_structured',
        'timestamp',
        'turn',
        'turn_id',
        'user_input',
      ]);
    }
    expect(run.campaign.checkpoints.map((checkpoint) => checkpoint.turn_id)).toEqual([
      'turn_6',
      'turn_7',
      'turn_10',
      'turn_11',
      'turn_12',
    ]);
    expect(run.campaign.milestone).toMatchObject({ value: 1, last_advanced_at_turn: 8 });
    expect(run.campaign.dialog).toEqual({ dialog_type_selected: 'action', future_route_decision: null });
    expect(run.campaign.selected.active_actor_id).toBe('pc_aria');
    expect(run.campaign.settings_snapshot).toMatchObject({
      'dialog.manual_type': 'action',
      'context.full_context_enabled': true,
    });
    expect(Object.keys(run.summary).sort()).toEqual(['facts_json', 'pins', 'summary_text']);
    expect(run.summary.facts_json['positions']).toEqual(run.state.positions);
  });

  it('used every scripted draft and left no timer running', () => {
    expect(() => run.model.assertAllUsed()).not.toThrow();
    const drafts = SCENARIOS.flatMap((entry) => entry.steps).reduce(
      (sum, step) => sum + (step.kind === 'turn' ? step.drafts.length : 0),
      0,
    );
    expect(run.model.calls).toHaveLength(drafts);
    expect(run.model.calls.every((call) => call.status === 'replied')).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('prints who said what, what was refused and why', () => {
    const text = run.transcript.join('\n');
    expect(text).toContain('✗ conflict [hp_claim] The text claims an HP change ("takes 4 damage")');
    expect(text).toContain(
      '✗ refused move call_2 [not_allowed]: Movement is locked during combat (区域移动锁未解除)',
    );
    expect(text).toContain('(disabled_until: turn 6)');
    expect(text).toContain('⚠ conflict_report (max_retries) after 3 attempts');
    expect(text).toContain('★ milestone advanced to 1');
    expect(text).toContain('⚙ settings changed');
    expect(text).toContain('✗ refused set_goal call_1 [unknown_tool]');
    expect(text).toContain(
      'goal model ← world background (142 chars), map (5 areas, 4 paths), backgrounds of Aria, Bram, Snikt',
    );
    expect(text).toContain(
      '★ ultimate goal fixed for the campaign (hidden from the players; 2 give-away terms guarded)',
    );
  });
});
