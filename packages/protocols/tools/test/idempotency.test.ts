import { describe, expect, it } from 'vitest';
import { createToolGate, type ToolGateEvents } from '../src/index.js';
import {
  createCampaign,
  createSlowTool,
  createThrowingCharge,
  EXPLORING,
  hpCall,
  moveCall,
} from './helpers.js';

function setup(keepTurns?: number) {
  const campaign = createCampaign();
  const gate = createToolGate({
    tools: campaign.tools,
    allowlist: ['move', 'hp_delta'],
    ...(keepTurns === undefined ? {} : { keepTurns }),
  });
  return { ...campaign, gate };
}

describe('at most once per call id and turn', () => {
  it('returns the recorded outcome for a call id that already ran this turn, without running it again', async () => {
    const t = setup();
    const executed: ToolGateEvents['executed'][] = [];
    t.gate.on('executed', (event) => executed.push(event));
    const first = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    const retry = await t.gate.process([hpCall('c1'), hpCall('c2')], { turn: 1, context: EXPLORING });
    expect(t.hp.get('pc_1')).toBe(9);
    expect(t.runs).toHaveLength(2);
    expect(retry.executed).toEqual([
      { ...first.executed[0], replayed: true },
      {
        id: 'c2',
        tool: 'hp_delta',
        args: hpCall().args,
        result: { hp: 9 },
        replayed: false,
        sameContentAs: 'c1', // the same content already ran in this turn, in an earlier batch
      },
    ]);
    expect(retry.records[0]).toMatchObject({ id: 'c1', outcome: 'executed', replayed: true });
    expect(executed.map((event) => event.call.id)).toEqual(['c1', 'c2']);
  });

  it('replays an executor error instead of running a possibly half-done side effect again', async () => {
    const { charge: flaky, runs } = createThrowingCharge();
    const gate = createToolGate({ tools: [flaky], allowlist: ['charge'] });
    const refused: ToolGateEvents['refused'][] = [];
    gate.on('refused', (event) => refused.push(event));
    const call = { id: 'pay_1', tool: 'charge', args: { cents: 100 } };
    await gate.process([call], { turn: 1, context: undefined });
    const retry = await gate.process([call], { turn: 1, context: undefined });
    expect(runs()).toBe(1);
    expect(retry.feedback.failed_calls[0]).toMatchObject({ code: 'executor_error', status: 'error' });
    expect(retry.records[0]).toMatchObject({ replayed: true, outcome: 'error' });
    expect(refused).toHaveLength(1);
  });

  it('judges a rejected call id again on retry, so corrected arguments can run', async () => {
    const t = setup();
    const bad = await t.gate.process([{ ...hpCall('c1'), args: { target_character_id: 'pc_1' } }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(bad.feedback.failed_calls[0]?.code).toBe('invalid_args');
    const refused = await t.gate.process([moveCall('c2', { to_area_id: 'moon' })], {
      turn: 1,
      context: EXPLORING,
    });
    expect(refused.feedback.failed_calls[0]?.code).toBe('tool_refused');
    const fixed = await t.gate.process([hpCall('c1'), moveCall('c2')], { turn: 1, context: EXPLORING });
    expect(fixed.executed.map((call) => [call.id, call.replayed])).toEqual([
      ['c1', false],
      ['c2', false],
    ]);
  });

  it('runs a call id once when two batches of the same turn race', async () => {
    const { slow, release, runs } = createSlowTool();
    const gate = createToolGate({ tools: [slow], allowlist: ['slow'] });
    const call = { id: 'c1', tool: 'slow', args: {} };
    const a = gate.process([call], { turn: 1, context: undefined });
    const b = gate.process([call], { turn: 1, context: undefined });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const [first, second] = await Promise.all([a, b]);
    expect(runs()).toBe(1);
    expect(first.executed[0]).toMatchObject({ result: 1, replayed: false });
    expect(second.executed[0]).toMatchObject({ result: 1, replayed: true });
  });

  it('treats the same call id in another turn as a new call', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    const next = await t.gate.process([hpCall('c1')], { turn: 2, context: EXPLORING });
    expect(next.executed[0]?.replayed).toBe(false);
    expect(t.hp.get('pc_1')).toBe(9);
  });

  it('forgets turns older than keepTurns', async () => {
    const t = setup(2);
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    const remembered = await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    expect(remembered.executed[0]?.replayed).toBe(true);
    await t.gate.process([hpCall('c3')], { turn: 3, context: EXPLORING });
    // turn 1 is now forgotten: nothing in it runs again, it is refused instead
    const replayedTurn = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(replayedTurn.feedback.failed_calls[0]).toMatchObject({ code: 'stale_turn', status: 'error' });
    expect(t.runs).toHaveLength(3);
    const stillKept = await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    expect(stillKept.executed[0]?.replayed).toBe(true);
  });

  it('runs a stale turn again once the host forgot the later turns (a rollback)', async () => {
    const t = setup(2);
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    await t.gate.process([hpCall('c3')], { turn: 3, context: EXPLORING });
    await t.gate.forgetTurnsAfter(0);
    const again = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(again.executed[0]?.replayed).toBe(false);
  });

  it('[CALLID-05] keeps at most keepTurns turns even when turns arrive in descending order', async () => {
    const t = setup(2);
    for (const turn of [10, 9, 8, 7]) {
      await t.gate.process([hpCall(`c${turn}`, -1)], { turn, context: EXPLORING });
    }
    expect(t.gate.snapshot().turns.map((entry) => entry.turn)).toEqual([10, 9]);
    expect(t.runs).toHaveLength(2);
  });
});
