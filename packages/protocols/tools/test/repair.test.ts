import { describe, expect, it } from 'vitest';
import { createToolGate, type ToolGateEvents, type ToolRepairHook } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall, moveCall } from './helpers.js';

function setup(repair: ToolRepairHook<unknown>) {
  const campaign = createCampaign();
  const gate = createToolGate({ tools: campaign.tools, allowlist: ['move', 'hp_delta'], repair });
  const repaired: ToolGateEvents['repaired'][] = [];
  gate.on('repaired', (event) => repaired.push(event));
  return { ...campaign, gate, repaired };
}

/** Coerces numeric strings, the most common slip of a model. */
const coerceNumbers: ToolRepairHook<unknown> = ({ problem, call }) => {
  if (problem !== 'invalid_args' || typeof call.args !== 'object' || call.args === null) return undefined;
  const args = Object.fromEntries(
    Object.entries(call.args).map(([key, value]) => [
      key,
      typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value,
    ]),
  );
  return { args };
};

describe('the repair hook', () => {
  it('turns invalid arguments into valid ones and records what was asked and what ran', async () => {
    const t = setup(coerceNumbers);
    const asked = { target_character_id: 'pc_1', delta: '-3', cause: 'trap' };
    const result = await t.gate.process([{ id: 'c1', tool: 'hp_delta', args: asked }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(t.hp.get('pc_1')).toBe(12);
    expect(result.executed[0]?.args).toEqual({ ...asked, delta: -3 });
    expect(result.records[0]).toMatchObject({
      requested: { tool: 'hp_delta', args: asked },
      ran: { tool: 'hp_delta', args: { ...asked, delta: -3 } },
      repair: { problem: 'invalid_args', outcome: 'repaired', original: { tool: 'hp_delta', args: asked } },
    });
    expect(t.repaired.map((event) => event.repair.outcome)).toEqual(['repaired']);
  });

  it('maps an unknown tool name to a canonical one', async () => {
    const t = setup(({ problem, call, tools }) =>
      problem === 'unknown_tool' && tools.includes(call.tool.toLowerCase())
        ? { tool: call.tool.toLowerCase() }
        : undefined,
    );
    const result = await t.gate.process([{ ...moveCall(), tool: 'MOVE' }], { turn: 1, context: EXPLORING });
    expect(result.executed[0]?.tool).toBe('move');
    expect(result.records[0]?.repair).toMatchObject({
      problem: 'unknown_tool',
      outcome: 'repaired',
      repaired: { tool: 'move' },
    });
  });

  it('rejects the call when the hook gives up, and records that it gave up', async () => {
    const t = setup(() => undefined);
    const result = await t.gate.process([{ id: 'c1', tool: 'fly', args: {} }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(result.feedback.failed_calls[0]?.code).toBe('unknown_tool');
    expect(result.records[0]?.repair).toEqual({
      problem: 'unknown_tool',
      outcome: 'gave_up',
      original: { tool: 'fly', args: {} },
    });
    expect(t.runs).toEqual([]);
  });

  it('rejects the call when the repaired call is still invalid, and repairs only once', async () => {
    let asked = 0;
    const t = setup(({ call }) => {
      asked++;
      return { tool: call.tool === 'fly' ? 'move' : 'nope', args: { actor_id: 'pc_1' } };
    });
    const result = await t.gate.process([{ id: 'c1', tool: 'fly', args: {} }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(asked).toBe(1);
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'invalid_args', tool: 'move' });
    expect(result.records[0]?.repair?.outcome).toBe('still_invalid');
    expect(t.runs).toEqual([]);
  });

  it('rejects as unknown when the repair names another unknown tool', async () => {
    const t = setup(() => ({ tool: 'teleport' }));
    const result = await t.gate.process([{ id: 'c1', tool: 'fly', args: {} }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'unknown_tool', tool: 'teleport' });
    expect(result.records[0]?.repair).toMatchObject({
      outcome: 'still_invalid',
      repaired: { tool: 'teleport', args: {} },
    });
  });

  it('records a hook that throws as failed and rejects the call', async () => {
    const t = setup(() => {
      throw new Error('repair bug');
    });
    const errors: ToolGateEvents['error'][] = [];
    t.gate.on('error', (event) => errors.push(event));
    const result = await t.gate.process([{ ...hpCall(), args: {} }], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]?.code).toBe('invalid_args');
    expect(result.records[0]?.repair?.outcome).toBe('failed');
    expect(errors.map((e) => e.stage)).toEqual(['repair']);
  });

  it('still refuses a repaired call to a disabled tool', async () => {
    const t = setup(({ call }) => ({ tool: call.tool.toLowerCase() }));
    t.gate.disable('hp_delta', { turn: 3 });
    const result = await t.gate.process([{ ...hpCall(), tool: 'HP_DELTA' }], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'disabled', disabled_until: 'turn 3' });
    expect(result.records[0]?.repair?.outcome).toBe('repaired');
    expect(t.runs).toEqual([]);
  });

  it('refuses a disabled tool before asking the hook about its arguments', async () => {
    let asked = 0;
    const t = setup(() => {
      asked++;
      return undefined;
    });
    t.gate.disable('hp_delta', { turn: 3 });
    const result = await t.gate.process([{ ...hpCall(), args: {} }], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]?.code).toBe('disabled');
    expect(asked).toBe(0);
  });

  it('is not asked about valid calls', async () => {
    let asked = 0;
    const t = setup(() => {
      asked++;
      return undefined;
    });
    const result = await t.gate.process([hpCall()], { turn: 1, context: EXPLORING });
    expect(result.executed).toHaveLength(1);
    expect(asked).toBe(0);
    expect(result.records[0]?.repair).toBeUndefined();
    expect(t.repaired).toEqual([]);
  });
});
