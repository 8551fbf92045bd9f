import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, definePolicy, defineTool } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall, moveCall, type TurnContext } from './helpers.js';

describe('definePolicy', () => {
  it('checks only its tool, with the validated arguments', async () => {
    const t = createCampaign();
    const seen: unknown[] = [];
    const noVault = definePolicy(t.move, ({ args }) => {
      seen.push(args);
      return args.to_area_id === 'vault'
        ? { reason: 'The vault is sealed', toolReason: 'area_locked' }
        : undefined;
    });
    const gate = createToolGate({ tools: t.tools, allowlist: ['move', 'hp_delta'], policies: [noVault] });
    const result = await gate.process([moveCall('m1'), hpCall('h1')], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls).toMatchObject([
      { id: 'm1', code: 'not_allowed', tool_reason: 'area_locked', reason: 'The vault is sealed' },
    ]);
    expect(result.executed.map((call) => call.id)).toEqual(['h1']);
    expect(seen).toEqual([moveCall('m1').args]);
    expect(t.runs.map((run) => run.tool)).toEqual(['hp_delta']);
  });

  it('passes the context, turn and time through, and names itself after the tool', async () => {
    const t = createCampaign();
    const policy = definePolicy(
      t.hpDelta,
      ({ context, turn }: { context: TurnContext; turn: number }) =>
        context.settings['tools.hp_delta_enabled'] && turn < 5,
    );
    expect(policy.name).toBe('hp_delta_policy');
    expect(policy.tools).toEqual(['hp_delta']);
    const gate = createToolGate({ tools: t.tools, allowlist: ['move', 'hp_delta'], policies: [policy] });
    const late = await gate.process([hpCall('h1')], { turn: 5, context: EXPLORING });
    expect(late.feedback.failed_calls[0]).toMatchObject({
      code: 'not_allowed',
      reason: expect.stringContaining('hp_delta_policy'),
    });
    expect(t.runs).toHaveLength(0);
  });

  it('takes a name and refuses misuse with invalid_argument', () => {
    const t = createCampaign();
    expect(definePolicy(t.move, () => true, { name: 'movement_lock' }).name).toBe('movement_lock');
    expect(() => definePolicy({} as never, () => true)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => definePolicy(t.move, 'x' as never)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => definePolicy(t.move, () => true, { name: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('is refused by the gate when its tool is not registered there', () => {
    const other = defineTool({
      name: 'other',
      description: 'x',
      args: z.object({}),
      reasons: [],
      execute: () => 1,
    });
    const t = createCampaign();
    expect(() =>
      createToolGate({
        tools: t.tools,
        allowlist: ['move', 'hp_delta'],
        policies: [definePolicy(other, () => true) as never],
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
