import { describe, expect, it } from 'vitest';
import { createToolGate, type ToolGateOptions } from '../src/index.js';
import { createCampaign, createThrowingCharge, EXPLORING, hpCall } from './helpers.js';

function setup(repeatedContent?: ToolGateOptions<readonly [], unknown>['repeatedContent']) {
  const campaign = createCampaign();
  const gate = createToolGate({
    tools: campaign.tools,
    allowlist: ['move', 'hp_delta'],
    ...(repeatedContent === undefined ? {} : { repeatedContent }),
  });
  return { ...campaign, gate };
}

describe('the same effect under a fresh id', () => {
  it('[CALLID-09] runs it by default and marks it with the id of the earlier call that had the same content', async () => {
    const t = setup();
    await t.gate.process([hpCall('call_A', -5)], { turn: 1, context: EXPLORING });
    const retry = await t.gate.process([hpCall('call_C', -5)], { turn: 1, context: EXPLORING });
    expect(retry.executed[0]).toMatchObject({ id: 'call_C', replayed: false, sameContentAs: 'call_A' });
    expect(retry.records[0]).toMatchObject({ sameContentAs: 'call_A' });
    expect(t.hp.get('pc_1')).toBe(5);
  });

  it('[CALLID-09] replays the earlier outcome under the new id with repeatedContent "replay", applying nothing twice', async () => {
    const t = setup('replay');
    await t.gate.process([hpCall('call_A', -5)], { turn: 1, context: EXPLORING });
    const retry = await t.gate.process([hpCall('call_C', -5)], { turn: 1, context: EXPLORING });
    expect(retry.executed[0]).toMatchObject({
      id: 'call_C',
      replayed: true,
      sameContentAs: 'call_A',
      result: { hp: 10 },
    });
    expect(retry.records[0]).toMatchObject({ id: 'call_C', replayed: true, sameContentAs: 'call_A' });
    expect(t.hp.get('pc_1')).toBe(10);
    const redelivered = await t.gate.process([hpCall('call_C', -5)], { turn: 1, context: EXPLORING });
    expect(redelivered.executed[0]).toMatchObject({ id: 'call_C', replayed: true });
    expect(t.runs).toHaveLength(1);
  });

  it('[CALLID-09] refuses it with already_applied under repeatedContent "refuse", naming the earlier call', async () => {
    const t = setup('refuse');
    await t.gate.process([hpCall('call_A', -5)], { turn: 1, context: EXPLORING });
    const retry = await t.gate.process([hpCall('call_C', -5)], { turn: 1, context: EXPLORING });
    expect(retry.feedback.failed_calls[0]).toMatchObject({
      id: 'call_C',
      code: 'already_applied',
      status: 'rejected',
    });
    expect(retry.feedback.failed_calls[0]?.reason).toContain('call_A');
    expect(t.hp.get('pc_1')).toBe(10);
  });

  it('runs equal calls of one batch under distinct ids: the model asked for each', async () => {
    const t = setup('refuse');
    const result = await t.gate.process([hpCall('a', -5), hpCall('b', -5)], { turn: 1, context: EXPLORING });
    expect(result.executed.map((call) => call.id)).toEqual(['a', 'b']);
    expect(t.hp.get('pc_1')).toBe(5);
  });

  it('does not look across turns, nor at calls that did not run', async () => {
    const t = setup('refuse');
    t.hp.set('pc_1', 0);
    await t.gate.process([hpCall('a', -5)], { turn: 1, context: EXPLORING }); // refused: character_dead
    t.hp.set('pc_1', 15);
    t.gate.enable('hp_delta');
    expect((await t.gate.process([hpCall('b', -5)], { turn: 1, context: EXPLORING })).executed).toHaveLength(
      1,
    );
    expect((await t.gate.process([hpCall('c', -5)], { turn: 2, context: EXPLORING })).executed).toHaveLength(
      1,
    );
  });

  it('recognises it after the memory is restored from a snapshot', async () => {
    const t = setup('refuse');
    await t.gate.process([hpCall('call_A', -5)], { turn: 1, context: EXPLORING });
    const restored = setup('refuse');
    restored.gate.restore(t.gate.snapshot());
    const retry = await restored.gate.process([hpCall('call_C', -5)], { turn: 1, context: EXPLORING });
    expect(retry.feedback.failed_calls[0]?.code).toBe('already_applied');
    expect(restored.runs).toEqual([]);
  });

  it.each(['run', 'replay'] as const)(
    'keeps an executor error as the earlier outcome under repeatedContent "%s"',
    async (mode) => {
      const { charge, runs } = createThrowingCharge();
      const gate = createToolGate({ tools: [charge], allowlist: ['charge'], repeatedContent: mode });
      const args = { cents: 100 };
      await gate.process([{ id: 'p1', tool: 'charge', args }], { turn: 1, context: undefined });
      const again = await gate.process([{ id: 'p2', tool: 'charge', args }], { turn: 1, context: undefined });
      expect(again.feedback.failed_calls[0]).toMatchObject({ id: 'p2', code: 'executor_error' });
      expect(again.records[0]).toMatchObject({ id: 'p2', sameContentAs: 'p1' });
      expect(runs()).toBe(mode === 'run' ? 2 : 1);
    },
  );

  it('refuses a repeatedContent that is not one of run, replay, refuse', () => {
    const { tools } = createCampaign();
    expect(() =>
      createToolGate({ tools, allowlist: ['move', 'hp_delta'], repeatedContent: 'skip' as never }),
    ).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
