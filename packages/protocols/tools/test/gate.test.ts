import { describe, expect, it } from 'vitest';
import { createManualClock } from '@parley/core';
import {
  createToolGate,
  defineTool,
  type FailedToolCall,
  type ToolGateEvents,
  type ToolPolicy,
} from '../src/index.js';
import { DocumentToolCall, DocumentToolFeedback } from './fixtures/shapes.js';
import { createCampaign, EXPLORING, hpCall, moveCall, type TurnContext } from './helpers.js';

const movementLock: ToolPolicy<TurnContext, 'move' | 'hp_delta'> = {
  name: 'movement_lock',
  tools: ['move'],
  check: ({ context }) =>
    context.state === 'combat' ? { reason: '区域移动锁未解除', toolReason: 'area_locked' } : undefined,
};

const hpSetting: ToolPolicy<TurnContext, 'move' | 'hp_delta'> = {
  name: 'hp_delta_setting',
  tools: ['hp_delta'],
  check: ({ context }) => context.settings['tools.hp_delta_enabled'],
};

function setup() {
  const campaign = createCampaign();
  const clock = createManualClock({ now: Date.UTC(2026, 0, 14) });
  const gate = createToolGate({
    tools: campaign.tools,
    allowlist: ['move', 'hp_delta'],
    policies: [movementLock, hpSetting],
    clock,
  });
  const refused: ToolGateEvents['refused'][] = [];
  const executed: ToolGateEvents['executed'][] = [];
  gate.on('refused', (event) => refused.push(event));
  gate.on('executed', (event) => executed.push(event));
  return { ...campaign, gate, clock, refused, executed };
}

const only = (failed: readonly FailedToolCall[]): FailedToolCall => {
  expect(failed).toHaveLength(1);
  return failed[0] as FailedToolCall;
};

describe('createToolGate with the reference move and hp_delta tools', () => {
  it('executes allowed calls in order and reports what ran', async () => {
    const t = setup();
    const calls = [moveCall(), hpCall()];
    for (const call of calls) expect(DocumentToolCall.safeParse(call).success).toBe(true);
    const result = await t.gate.process(calls, { turn: 1, context: EXPLORING });
    expect(result.executed).toEqual([
      {
        id: 'call_001',
        tool: 'move',
        args: moveCall().args,
        result: { actor_id: 'pc_1', area_id: 'vault' },
        replayed: false,
      },
      { id: 'call_002', tool: 'hp_delta', args: hpCall().args, result: { hp: 12 }, replayed: false },
    ]);
    expect(result.feedback).toEqual({ failed_calls: [] });
    expect(t.positions.get('pc_1')).toBe('vault');
    expect(t.hp.get('pc_1')).toBe(12);
    expect(result.records.map((r) => [r.id, r.outcome, r.replayed])).toEqual([
      ['call_001', 'executed', false],
      ['call_002', 'executed', false],
    ]);
    expect(t.executed.map((e) => e.call.id)).toEqual(['call_001', 'call_002']);
    expect(t.refused).toEqual([]);
  });

  it('rejects an unknown tool and runs nothing for it', async () => {
    const t = setup();
    const result = await t.gate.process([{ id: 'call_009', tool: 'map_generate', args: {} }], {
      turn: 1,
      context: EXPLORING,
    });
    const failed = only(result.feedback.failed_calls);
    expect(failed).toMatchObject({
      id: 'call_009',
      tool: 'map_generate',
      status: 'rejected',
      code: 'unknown_tool',
    });
    expect(failed.reason).toContain('move, hp_delta');
    expect(DocumentToolFeedback.safeParse(result.feedback).success).toBe(true);
    expect(t.runs).toEqual([]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'treats the inherited name %s as an unknown tool',
    async (name) => {
      const t = setup();
      const result = await t.gate.process([{ id: 'c1', tool: name, args: {} }], {
        turn: 1,
        context: EXPLORING,
      });
      expect(only(result.feedback.failed_calls).code).toBe('unknown_tool');
      expect(result.executed).toEqual([]);
    },
  );

  it('matches tool names exactly (no case folding)', async () => {
    const t = setup();
    const result = await t.gate.process([{ ...moveCall(), tool: 'Move' }], { turn: 1, context: EXPLORING });
    expect(only(result.feedback.failed_calls).code).toBe('unknown_tool');
    expect(t.runs).toEqual([]);
  });

  it('rejects invalid arguments with their issues and does not execute', async () => {
    const t = setup();
    const result = await t.gate.process(
      [{ id: 'call_002', tool: 'hp_delta', args: { target_character_id: 'pc_1', delta: 2.5 } }],
      { turn: 1, context: EXPLORING },
    );
    const failed = only(result.feedback.failed_calls);
    expect(failed.code).toBe('invalid_args');
    expect(failed.status).toBe('rejected');
    expect(failed.issues?.map((issue) => issue.pathText).sort()).toEqual(['cause', 'delta']);
    expect(failed.reason).toMatch(/^The arguments are invalid: /);
    expect(t.hp.get('pc_1')).toBe(15);
    expect(t.runs).toEqual([]);
  });

  it.each([null, [], 'x', 3])('rejects arguments that are not an object (%j)', async (args) => {
    const t = setup();
    const result = await t.gate.process([{ id: 'c1', tool: 'move', args }], { turn: 1, context: EXPLORING });
    const failed = only(result.feedback.failed_calls);
    expect(failed.code).toBe('invalid_args');
    expect(failed.issues).toEqual([{ path: [], pathText: '', message: 'The arguments must be an object' }]);
  });

  it('refuses a move while the machine state holds the movement lock, with the tool reason', async () => {
    const t = setup();
    const combat: TurnContext = { ...EXPLORING, state: 'combat' };
    const result = await t.gate.process([moveCall(), hpCall()], { turn: 1, context: combat });
    const failed = only(result.feedback.failed_calls);
    expect(failed).toEqual({
      id: 'call_001',
      tool: 'move',
      status: 'rejected',
      code: 'not_allowed',
      reason: '区域移动锁未解除',
      tool_reason: 'area_locked',
    });
    expect(result.executed.map((call) => call.id)).toEqual(['call_002']);
    expect(t.positions.get('pc_1')).toBe('hall');
  });

  it('refuses a tool switched off in the settings snapshot with a default reason', async () => {
    const t = setup();
    const off: TurnContext = {
      ...EXPLORING,
      settings: { ...EXPLORING.settings, 'tools.hp_delta_enabled': false },
    };
    const result = await t.gate.process([hpCall()], { turn: 1, context: off });
    const failed = only(result.feedback.failed_calls);
    expect(failed.code).toBe('not_allowed');
    expect(failed.reason).toContain('hp_delta_setting');
    expect(failed.tool_reason).toBeUndefined();
    expect(t.hp.get('pc_1')).toBe(15);
  });

  it('keeps a tool disabled until the given turn, then runs it again', async () => {
    const t = setup();
    t.gate.disable('move', { turn: 5 }, 'the bridge is out');
    for (const turn of [3, 4]) {
      const result = await t.gate.process([moveCall(`c${turn}`)], { turn, context: EXPLORING });
      const failed = only(result.feedback.failed_calls);
      expect(failed).toMatchObject({ code: 'disabled', status: 'rejected', disabled_until: 'turn 5' });
      expect(failed.reason).toContain('the bridge is out');
    }
    expect(t.runs).toEqual([]);
    const later = await t.gate.process([moveCall('c5')], { turn: 5, context: EXPLORING });
    expect(later.executed).toHaveLength(1);
    expect(DocumentToolFeedback.safeParse(later.feedback).success).toBe(true);
  });

  it('keeps a tool disabled until a time on the clock, written as ISO 8601', async () => {
    const t = setup();
    const until = t.clock.now() + 60_000;
    t.gate.disable('hp_delta', { at: until });
    const first = await t.gate.process([hpCall('a')], { turn: 1, context: EXPLORING });
    expect(only(first.feedback.failed_calls)).toMatchObject({
      code: 'disabled',
      disabled_until: '2026-01-14T00:01:00.000Z',
    });
    expect(t.gate.disabled()).toEqual([{ tool: 'hp_delta', until: { at: until }, reason: '' }]);
    t.clock.advance(60_000);
    const second = await t.gate.process([hpCall('b')], { turn: 1, context: EXPLORING });
    expect(second.executed).toHaveLength(1);
    expect(t.gate.disabled()).toEqual([]);
  });

  it('lets a policy disable the tool for later calls until a turn', async () => {
    const t = setup();
    const gate = createToolGate({
      tools: t.tools,
      allowlist: ['move', 'hp_delta'],
      policies: [
        {
          name: 'rooted',
          tools: ['move'],
          check: ({ turn }) =>
            turn === 2 ? { reason: 'Rooted by a spell', disableUntil: { turn: 4 } } : undefined,
        },
      ],
    });
    const disabled: ToolGateEvents['disabled'][] = [];
    gate.on('disabled', (event) => disabled.push(event));
    const first = await gate.process([moveCall('a')], { turn: 2, context: EXPLORING });
    expect(only(first.feedback.failed_calls)).toMatchObject({
      code: 'not_allowed',
      disabled_until: 'turn 4',
    });
    expect(disabled).toEqual([{ tool: 'move', until: { turn: 4 }, reason: 'Rooted by a spell' }]);
    const second = await gate.process([moveCall('b')], { turn: 3, context: EXPLORING });
    expect(only(second.feedback.failed_calls).code).toBe('disabled');
    expect(gate.disabled(3).map((entry) => entry.tool)).toEqual(['move']);
    expect(gate.disabled(4)).toEqual([]);
    expect(gate.enable('move')).toBe(true);
    expect(gate.enable('move')).toBe(false);
    expect((await gate.process([moveCall('c')], { turn: 3, context: EXPLORING })).executed).toHaveLength(1);
  });

  it('reports a tool refusal with the tool reason and the document shape', async () => {
    const t = setup();
    const result = await t.gate.process([moveCall('c1', { from_area_id: 'vault' })], {
      turn: 1,
      context: EXPLORING,
    });
    expect(only(result.feedback.failed_calls)).toEqual({
      id: 'c1',
      tool: 'move',
      status: 'rejected',
      code: 'tool_refused',
      reason: 'pc_1 is not in vault',
      tool_reason: 'not_in_area',
    });
    const noPath = await t.gate.process([moveCall('c2', { to_area_id: 'moon' })], {
      turn: 1,
      context: EXPLORING,
    });
    expect(only(noPath.feedback.failed_calls)).toMatchObject({ reason: 'The tool "move" refused: no_path' });
    expect(DocumentToolFeedback.safeParse(noPath.feedback).success).toBe(true);
  });

  it('disables a tool when its executor refuses with disableUntil', async () => {
    const t = setup();
    const dead = await t.gate.process(
      [{ ...hpCall('c1'), args: { target_character_id: 'npc_goblin', delta: -1, cause: 'x' } }],
      {
        turn: 1,
        context: EXPLORING,
      },
    );
    expect(only(dead.feedback.failed_calls)).toMatchObject({
      code: 'tool_refused',
      tool_reason: 'character_dead',
      disabled_until: 'turn 99',
    });
    const next = await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    expect(only(next.feedback.failed_calls).code).toBe('disabled');
  });

  it('captures an executor that throws as status error and never throws itself', async () => {
    const t = setup();
    t.positions.set = () => {
      throw new Error('database down');
    };
    const errors: ToolGateEvents['error'][] = [];
    t.gate.on('error', (event) => errors.push(event));
    const result = await t.gate.process([moveCall(), hpCall()], { turn: 1, context: EXPLORING });
    const failed = only(result.feedback.failed_calls);
    expect(failed).toMatchObject({ id: 'call_001', status: 'error', code: 'executor_error' });
    expect(failed.reason).not.toContain('database down');
    expect(errors.map((e) => [e.stage, (e.error as Error).message])).toEqual([['execute', 'database down']]);
    expect(result.executed.map((call) => call.id)).toEqual(['call_002']);
    expect(DocumentToolFeedback.safeParse(result.feedback).success).toBe(true);
  });

  it('refuses every call of a batch that shares an id, and runs none of them', async () => {
    const t = setup();
    const result = await t.gate.process([moveCall('same'), hpCall('same'), hpCall('other')], {
      turn: 1,
      context: EXPLORING,
    });
    expect(result.feedback.failed_calls.map((f) => [f.id, f.tool, f.code])).toEqual([
      ['same', 'move', 'duplicate_call_id'],
      ['same', 'hp_delta', 'duplicate_call_id'],
    ]);
    expect(result.executed.map((call) => call.id)).toEqual(['other']);
    expect(t.positions.get('pc_1')).toBe('hall');
  });

  it.each([
    [null, '#0', '', 'it is not an object'],
    [['move'], '#0', '', 'it is not an object'],
    [{ tool: 'move', args: {} }, '#0', 'move', 'it has no "id"'],
    [{ id: '', tool: 'move', args: {} }, '#0', 'move', 'it has no "id"'],
    [{ id: 'c1', args: {} }, 'c1', '', 'it has no "tool" name'],
    [{ id: 'c1', tool: 'move', args: {}, reason: 7 }, 'c1', 'move', 'its "reason" is not text'],
  ])('rejects the malformed call %j as invalid_call', async (call, id, tool, problem) => {
    const t = setup();
    // A peer may send anything; the gate must answer it as data.
    const result = await t.gate.process([call as never], { turn: 1, context: EXPLORING });
    expect(only(result.feedback.failed_calls)).toMatchObject({
      id,
      tool,
      code: 'invalid_call',
      status: 'rejected',
    });
    expect(only(result.feedback.failed_calls).reason).toContain(problem);
    expect(t.runs).toEqual([]);
  });

  it('refuses the calls not yet started once the signal aborts', async () => {
    const t = setup();
    const controller = new AbortController();
    t.positions.set = ((key: string, value: string) => {
      controller.abort();
      return Map.prototype.set.call(t.positions, key, value);
    }) as typeof t.positions.set;
    const result = await t.gate.process([moveCall(), hpCall()], {
      turn: 1,
      context: EXPLORING,
      signal: controller.signal,
    });
    expect(result.executed.map((call) => call.id)).toEqual(['call_001']);
    expect(only(result.feedback.failed_calls)).toMatchObject({
      id: 'call_002',
      code: 'cancelled',
      status: 'rejected',
    });
    expect(t.hp.get('pc_1')).toBe(15);
  });

  it('reports a policy that throws as policy_error and does not run the tool', async () => {
    const t = setup();
    const gate = createToolGate({
      tools: t.tools,
      allowlist: ['move', 'hp_delta'],
      policies: [
        {
          name: 'broken',
          check: () => {
            throw new Error('snapshot missing');
          },
        },
      ],
    });
    const errors: ToolGateEvents['error'][] = [];
    gate.on('error', (event) => errors.push(event));
    const result = await gate.process([moveCall()], { turn: 1, context: EXPLORING });
    expect(only(result.feedback.failed_calls)).toMatchObject({ code: 'policy_error', status: 'error' });
    expect(errors.map((e) => e.stage)).toEqual(['policy']);
    expect(t.runs).toEqual([]);
  });

  it('reports a policy naming a reason its tool does not declare as policy_error', async () => {
    const t = setup();
    const gate = createToolGate({
      tools: t.tools,
      allowlist: ['move', 'hp_delta'],
      policies: [{ name: 'sloppy', check: () => ({ reason: 'no', toolReason: 'made_up' }) }],
    });
    const result = await gate.process([moveCall()], { turn: 1, context: EXPLORING });
    expect(only(result.feedback.failed_calls).code).toBe('policy_error');
  });

  it('reports an executor refusing with an undeclared reason as executor_error', async () => {
    const t = setup();
    const errors: ToolGateEvents['error'][] = [];
    t.gate.on('error', (event) => errors.push(event));
    const sneaky = createToolGate({
      tools: [
        {
          ...t.move,
          execute: (_args: unknown, { reject }: { reject: (r: string) => unknown }) => reject('nope'),
        } as never,
      ],
      allowlist: ['move'] as never,
    });
    sneaky.on('error', (event) => errors.push(event));
    const result = await sneaky.process([moveCall()], { turn: 1, context: EXPLORING });
    expect(only(result.feedback.failed_calls)).toMatchObject({ code: 'executor_error', status: 'error' });
    expect(errors).toHaveLength(1);
  });

  it('writes refusal texts with the host messages per code', async () => {
    const t = setup();
    const gate = createToolGate({
      tools: t.tools,
      allowlist: ['move', 'hp_delta'],
      messages: { unknown_tool: ({ tool }) => `工具未启用：${tool}` },
    });
    const result = await gate.process(
      [{ id: 'c1', tool: 'fly', args: {} }, moveCall('c2', { to_area_id: 'moon' })],
      {
        turn: 1,
        context: EXPLORING,
      },
    );
    expect(result.feedback.failed_calls.map((f) => f.reason)).toEqual([
      '工具未启用：fly',
      'The tool "move" refused: no_path',
    ]);
  });

  it('hands executors the call, context, turn and signal', async () => {
    const t = setup();
    const seen: unknown[] = [];
    const probe = createToolGate({
      tools: [
        {
          ...t.move,
          execute: (_args: unknown, ctx: unknown) => {
            seen.push(ctx);
            return 'ok';
          },
        } as never,
      ],
      allowlist: ['move'] as never,
    });
    const signal = new AbortController().signal;
    await probe.process([moveCall()], { turn: 7, context: EXPLORING, signal });
    expect(seen).toEqual([
      expect.objectContaining({
        call: { id: 'call_001', tool: 'move', reason: 'The party heads to the vault' },
        context: EXPLORING,
        turn: 7,
        signal,
      }),
    ]);
  });
});

describe('createToolGate with a schema that throws', () => {
  it('reports the arguments as invalid instead of throwing', async () => {
    const throwing = {
      '~standard': {
        version: 1 as const,
        vendor: 'broken',
        validate: (): never => {
          throw new Error('validator crashed');
        },
      },
    };
    const tool = defineTool({ name: 'odd', description: 'd', args: throwing, reasons: [], execute: () => 1 });
    const gate = createToolGate({ tools: [tool], allowlist: ['odd'] });
    const result = await gate.process([{ id: 'c1', tool: 'odd', args: {} }], { turn: 1, context: undefined });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'invalid_args' });
    expect(result.feedback.failed_calls[0]?.reason).toContain('validator crashed');
  });
});
