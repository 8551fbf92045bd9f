import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolGateSnapshot } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall } from './helpers.js';

function setup(options: { snapshot?: ToolGateSnapshot; keepTurns?: number } = {}) {
  const campaign = createCampaign();
  const clock = createManualClock({ now: 1_000 });
  const gate = createToolGate({
    tools: campaign.tools,
    allowlist: ['move', 'hp_delta'],
    clock,
    ...options,
  });
  return { ...campaign, gate, clock };
}

describe('gate.snapshot / restore', () => {
  it('exports executed call ids with their outcomes per turn, and disabled tools, as plain JSON', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1')], { turn: 4, context: EXPLORING });
    t.gate.disable('move', { turn: 9 }, 'cutscene');
    const snapshot = t.gate.snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot).toMatchObject({
      version: 1,
      turns: [
        { turn: 4, calls: [{ id: 'c1', executed: { result: { hp: 12 } }, record: { outcome: 'executed' } }] },
      ],
      disabled: [{ tool: 'move', until: { turn: 9 }, reason: 'cutscene' }],
    });
  });

  it('replays a restored call id instead of running it again, in a new gate', async () => {
    const first = setup();
    await first.gate.process([hpCall('c1')], { turn: 4, context: EXPLORING });
    const second = setup({ snapshot: first.gate.snapshot() });
    const retry = await second.gate.process([hpCall('c1')], { turn: 4, context: EXPLORING });
    expect(second.runs).toHaveLength(0);
    expect(retry.executed[0]).toMatchObject({ id: 'c1', result: { hp: 12 }, replayed: true });
    expect(second.gate.disabled()).toEqual([]);
  });

  it('restores disabled tools, so a disabled tool stays refused', async () => {
    const first = setup();
    first.gate.disable('move', { at: 5_000 }, 'locked');
    const second = setup();
    second.gate.restore(first.gate.snapshot());
    expect(second.gate.disabled()).toEqual([{ tool: 'move', until: { at: 5_000 }, reason: 'locked' }]);
    const result = await second.gate.process(
      [{ id: 'm1', tool: 'move', args: { actor_id: 'pc_1', from_area_id: 'hall', to_area_id: 'vault' } }],
      { turn: 1, context: EXPLORING },
    );
    expect(result.feedback.failed_calls[0]?.code).toBe('disabled');
    expect(second.runs).toHaveLength(0);
  });

  it('replaces what the gate remembered: calls after the snapshot run again after a rollback', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    const checkpoint = t.gate.snapshot();
    await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    t.gate.disable('move', { turn: 5 }, 'later');
    t.gate.restore(checkpoint);
    expect(t.gate.disabled()).toEqual([]);
    const replayed = await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    expect(replayed.executed[0]?.replayed).toBe(false);
    expect(t.runs).toHaveLength(3);
  });

  it('refuses malformed snapshots with invalid_snapshot and keeps its memory', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    const good = t.gate.snapshot();
    const call = good.turns[0]?.calls[0];
    const bad: unknown[] = [
      null,
      { ...good, version: 2 },
      { ...good, turns: 'x' },
      { ...good, turns: [{ turn: 1.5, calls: [] }] },
      {
        ...good,
        turns: [
          { turn: 1, calls: [] },
          { turn: 1, calls: [] },
        ],
      },
      { ...good, turns: [{ turn: 1, calls: [call, call] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, id: '' }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, record: { ...call?.record, id: 'other' } }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, record: { ...call?.record, turn: 'x' } }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, record: { ...call?.record, replayed: 1 } }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, record: { ...call?.record, requested: 3 } }] }] },
      {
        ...good,
        turns: [{ turn: 1, calls: [{ ...call, record: { ...call?.record, requested: { args: {} } } }] }],
      },
      { ...good, turns: [{ turn: 2, calls: [call] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, content: 5 }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, executed: undefined }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, executed: { ...call?.executed, id: 'x' } }] }] },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, executed: { ...call?.executed, args: [] } }] }] },
      {
        ...good,
        turns: [
          {
            turn: 1,
            calls: [
              {
                ...call,
                failed: { id: 'c1', tool: 'hp_delta', status: 'error', reason: 'r', code: 'executor_error' },
              },
            ],
          },
        ],
      },
      { ...good, turns: [{ turn: 1, calls: [{ ...call, record: { ...call?.record, outcome: 'maybe' } }] }] },
      { ...good, disabled: [{ tool: 'teleport', until: { turn: 1 }, reason: '' }] },
      { ...good, disabled: [{ tool: 'move', until: { turn: 1 }, reason: 3 }] },
      { ...good, disabled: [{ tool: 'move', until: { week: 1 }, reason: '' }] },
      {
        ...good,
        disabled: [
          { tool: 'move', until: { turn: 1 }, reason: '' },
          { tool: 'move', until: { turn: 2 }, reason: '' },
        ],
      },
      { ...good, disabled: [{ tool: 'move', until: { at: Number.NaN }, reason: '' }] },
      { version: 1, turns: [], disabled: [{ tool: 'move', until: 5, reason: '' }] },
      { version: 1, turns: [], disabled: [], extra: () => 1 },
    ];
    for (const snapshot of bad) {
      let error: unknown;
      try {
        t.gate.restore(snapshot as ToolGateSnapshot);
      } catch (caught) {
        error = caught;
      }
      expect(isParleyError(error, 'invalid_snapshot'), JSON.stringify(snapshot)).toBe(true);
    }
    expect(t.gate.snapshot()).toEqual(good);
    expect(() => setup({ snapshot: { version: 3 } as never })).toThrow(
      expect.objectContaining({ code: 'invalid_snapshot' }),
    );
  });

  it('checks failed calls in snapshots: status, code and the missing result', async () => {
    let calls = 0;
    const flaky = defineTool({
      name: 'charge',
      description: 'Charges',
      args: z.object({}),
      reasons: [],
      execute: () => {
        calls++;
        throw new Error('boom');
      },
    });
    const gate = createToolGate({ tools: [flaky], allowlist: ['charge'] });
    await gate.process([{ id: 'p1', tool: 'charge', args: {} }], { turn: 1, context: undefined });
    const good = gate.snapshot();
    const call = good.turns[0]?.calls[0];
    expect(call?.failed).toMatchObject({ code: 'executor_error', status: 'error' });
    const restored = createToolGate({ tools: [flaky], allowlist: ['charge'], snapshot: good });
    const retry = await restored.process([{ id: 'p1', tool: 'charge', args: {} }], {
      turn: 1,
      context: undefined,
    });
    expect(retry.feedback.failed_calls[0]).toMatchObject({ code: 'executor_error' });
    expect(calls).toBe(1);
    for (const failed of [
      { ...call?.failed, status: 'rejected' },
      { ...call?.failed, code: 'nope' },
      { ...call?.failed, reason: 4 },
    ]) {
      expect(() =>
        gate.restore({ ...good, turns: [{ turn: 1, calls: [{ ...call, failed } as never] }] }),
      ).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
    }
    expect(() =>
      gate.restore({
        ...good,
        turns: [{ turn: 1, calls: [{ ...call, executed: { id: 'p1', tool: 'charge', args: {} } } as never] }],
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
  });

  it('throws json_not_serializable from snapshot when a recorded result is not JSON', async () => {
    const odd = defineTool({
      name: 'odd',
      description: 'Returns a function',
      args: z.object({}),
      reasons: [],
      execute: () => () => 1,
    });
    const gate = createToolGate({ tools: [odd], allowlist: ['odd'] });
    await gate.process([{ id: 'o1', tool: 'odd', args: {} }], { turn: 1, context: undefined });
    expect(() => gate.snapshot()).toThrow(expect.objectContaining({ code: 'invalid_snapshot' }));
  });
});

describe('gate.forgetTurnsAfter / reset', () => {
  it('forgets the call ids of later turns, so a repeated turn number runs its calls', async () => {
    const t = setup({ keepTurns: 5 });
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    await t.gate.process([hpCall('c2')], { turn: 2, context: EXPLORING });
    await t.gate.forgetTurnsAfter(1);
    const again = await t.gate.process([hpCall('c1'), hpCall('c2')], { turn: 2, context: EXPLORING });
    expect(again.executed.map((call) => call.replayed)).toEqual([false, false]);
    const turn1 = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(turn1.executed[0]?.replayed).toBe(true); // turn 1 is kept
    expect(t.gate.snapshot().turns.map((turn) => turn.turn)).toEqual([1, 2]);
  });

  it('refuses a turn that is not an integer', async () => {
    const t = setup();
    await expect(t.gate.forgetTurnsAfter(Number.NaN)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('reset forgets every call id and re-enables every tool', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    t.gate.disable('move', { turn: 3 });
    await t.gate.reset();
    expect(t.gate.snapshot()).toEqual({ version: 1, turns: [], disabled: [] });
    const again = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(again.executed[0]?.replayed).toBe(false);
  });
});
