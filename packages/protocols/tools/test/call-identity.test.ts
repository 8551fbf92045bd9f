import { createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolGate, defineTool, type ToolGateEvents } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall, moveCall, storedCallAt, storedCall } from './helpers.js';

function setup(options: { store?: ReturnType<typeof createMemoryStore> } = {}) {
  const campaign = createCampaign();
  const gate = createToolGate({ tools: campaign.tools, allowlist: ['move', 'hp_delta'], ...options });
  const refused: ToolGateEvents['refused'][] = [];
  gate.on('refused', (event) => refused.push(event));
  return { ...campaign, gate, refused };
}

describe('a call is its id and its content', () => {
  it('[CALLID-01] refuses a reused id carrying another tool with call_id_reused, runs nothing and replays nothing', async () => {
    const t = setup();
    await t.gate.process([hpCall('call_001', -5)], { turn: 7, context: EXPLORING });
    const r = await t.gate.process([moveCall('call_001')], { turn: 7, context: EXPLORING });
    expect(r.executed).toEqual([]);
    expect(r.feedback.failed_calls).toEqual([
      expect.objectContaining({ id: 'call_001', tool: 'move', status: 'rejected', code: 'call_id_reused' }),
    ]);
    expect(r.feedback.failed_calls[0]?.reason).toContain('another call (hp_delta)');
    expect(r.feedback.failed_calls[0]?.reason).toContain('new id');
    expect(r.records[0]).toMatchObject({ outcome: 'rejected', code: 'call_id_reused', replayed: false });
    expect(t.runs.map((run) => run.tool)).toEqual(['hp_delta']);
    expect(t.positions.get('pc_1')).toBe('hall');
    expect(t.refused.map((event) => event.failed.code)).toEqual(['call_id_reused']);
  });

  it('[CALLID-02] refuses a reused id carrying the same tool with other arguments', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1', -3)], { turn: 1, context: EXPLORING });
    const retry = await t.gate.process([hpCall('c1', -10)], { turn: 1, context: EXPLORING });
    expect(retry.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    expect(retry.feedback.failed_calls[0]?.reason).toContain('(hp_delta with other arguments)');
    expect(t.hp.get('pc_1')).toBe(12);
    expect(t.runs).toHaveLength(1);
  });

  it('lets the model re-issue the refused call under a new id', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1', -3)], { turn: 1, context: EXPLORING });
    await t.gate.process([moveCall('c1')], { turn: 1, context: EXPLORING });
    const reissued = await t.gate.process([moveCall('c2')], { turn: 1, context: EXPLORING });
    expect(reissued.executed[0]).toMatchObject({ id: 'c2', tool: 'move', replayed: false });
    expect(t.positions.get('pc_1')).toBe('vault');
  });

  it('[CALLID-02] replays the same content whatever its key order or reason text', async () => {
    const t = setup();
    await t.gate.process([hpCall('c1', -3)], { turn: 1, context: EXPLORING });
    const reordered = {
      id: 'c1',
      tool: 'hp_delta',
      args: { cause: 'trap', delta: -3, target_character_id: 'pc_1' },
      reason: 'said differently',
    };
    const retry = await t.gate.process([reordered], { turn: 1, context: EXPLORING });
    expect(retry.executed[0]).toMatchObject({ id: 'c1', replayed: true, result: { hp: 12 } });
    expect(t.runs).toHaveLength(1);
  });

  it('[CALLID-02] tells -0 from 0 and an own __proto__ key from its absence', async () => {
    let runs = 0;
    const note = defineTool({
      name: 'note',
      description: 'Notes a value',
      args: z.object({ value: z.unknown() }).passthrough(),
      reasons: [],
      execute: () => ++runs,
    });
    const gate = createToolGate({ tools: [note], allowlist: ['note'] });
    await gate.process([{ id: 'n1', tool: 'note', args: { value: 0 } }], { turn: 1, context: undefined });
    const negative = await gate.process([{ id: 'n1', tool: 'note', args: { value: -0 } }], {
      turn: 1,
      context: undefined,
    });
    expect(negative.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    await gate.process([{ id: 'n2', tool: 'note', args: { value: 1 } }], { turn: 1, context: undefined });
    const proto = await gate.process(
      [{ id: 'n2', tool: 'note', args: JSON.parse('{"value":1,"__proto__":{"value":2}}') }],
      { turn: 1, context: undefined },
    );
    expect(proto.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    expect(runs).toBe(2);
  });

  it('answers one of two concurrent batches reusing an id for other content with call_id_reused', async () => {
    const t = setup();
    const [a, b] = await Promise.all([
      t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING }),
      t.gate.process([moveCall('c1')], { turn: 1, context: EXPLORING }),
    ]);
    expect(a.executed[0]).toMatchObject({ tool: 'hp_delta', replayed: false });
    expect(b.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    expect(t.runs).toHaveLength(1);
  });

  it('treats the same id in another turn as a new call, whatever its content', async () => {
    const t = setup();
    await t.gate.process([hpCall('call_001')], { turn: 1, context: EXPLORING });
    const next = await t.gate.process([moveCall('call_001')], { turn: 2, context: EXPLORING });
    expect(next.executed[0]).toMatchObject({ tool: 'move', replayed: false });
  });

  it('[CALLID-03] keeps the content in a snapshot, so a restored gate refuses a reused id and replays the same call', async () => {
    const before = setup();
    await before.gate.process([hpCall('c1', -0)], { turn: 3, context: EXPLORING });
    const snapshot = JSON.parse(JSON.stringify(before.gate.snapshot()));
    const after = setup();
    after.gate.restore(snapshot);
    const reused = await after.gate.process([moveCall('c1')], { turn: 3, context: EXPLORING });
    expect(reused.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    const same = await after.gate.process([hpCall('c1', -0)], { turn: 3, context: EXPLORING });
    expect(same.executed[0]).toMatchObject({ replayed: true });
    expect(after.runs).toHaveLength(0);
  });

  it('reads the content of a snapshot written without it from the recorded request', async () => {
    const before = setup();
    await before.gate.process([hpCall('c1')], { turn: 3, context: EXPLORING });
    const snapshot = before.gate.snapshot();
    const legacy = {
      ...snapshot,
      turns: snapshot.turns.map((turn) => ({
        ...turn,
        calls: turn.calls.map(({ content: _content, ...call }) => call),
      })),
    };
    const after = setup();
    after.gate.restore(legacy);
    expect(
      (await after.gate.process([moveCall('c1')], { turn: 3, context: EXPLORING })).feedback.failed_calls[0]
        ?.code,
    ).toBe('call_id_reused');
    expect(
      (await after.gate.process([hpCall('c1')], { turn: 3, context: EXPLORING })).executed[0]?.replayed,
    ).toBe(true);
  });

  it('[CALLID-03] refuses a reused id after a restart on the same store, and replays the same call', async () => {
    const store = createMemoryStore();
    const before = setup({ store });
    await before.gate.process([hpCall('c1', -0)], { turn: 3, context: EXPLORING });
    const after = setup({ store });
    const reused = await after.gate.process([moveCall('c1')], { turn: 3, context: EXPLORING });
    expect(reused.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    expect(after.runs).toHaveLength(0);
    expect(await storedCallAt(store, 'parley:tools:3:c1')).toMatchObject({ state: 'done', id: 'c1' });
    const same = await after.gate.process([hpCall('c1', -0)], { turn: 3, context: EXPLORING });
    expect(same.executed[0]).toMatchObject({ replayed: true, result: { hp: 15 } });
    // the local memory now holds it too
    const again = await after.gate.process([moveCall('c1')], { turn: 3, context: EXPLORING });
    expect(again.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    expect(after.runs).toHaveLength(0);
  });

  it('refuses a reused id another replica is still running for other content, instead of outcome_unknown', async () => {
    const store = createMemoryStore();
    const t = setup({ store });
    await store.set(
      'parley:tools:1:c1',
      storedCall({
        state: 'executing',
        tool: 'hp_delta',
        startedAt: 0,
        content: '{"args":{"delta":-3},"tool":"hp_delta"}',
      }),
    );
    const reused = await t.gate.process([moveCall('c1')], { turn: 1, context: EXPLORING });
    expect(reused.feedback.failed_calls[0]?.code).toBe('call_id_reused');
    expect(reused.feedback.failed_calls[0]?.reason).toContain('(hp_delta)');
    const same = await t.gate.process([{ id: 'c1', tool: 'hp_delta', args: { delta: -3 } }], {
      turn: 1,
      context: EXPLORING,
    });
    expect(same.feedback.failed_calls[0]?.code).toBe('outcome_unknown');
    expect(t.runs).toHaveLength(0);
  });

  it('makes a call that its own executor sends again with the same id wait for it, then replays it', async () => {
    const runs: string[] = [];
    let again: Promise<unknown> | undefined;
    const gate = createToolGate({
      tools: [
        defineTool({
          name: 'note',
          description: 'Writes a note',
          args: z.object({ text: z.string() }),
          reasons: [],
          execute: (args) => {
            runs.push(args.text);
            // The executor proposes the same call again while it is still running.
            again ??= gate.process([{ id: 'n1', tool: 'note', args }], { turn: 1, context: {} });
            return { written: args.text };
          },
        }),
      ],
      allowlist: ['note'],
    });
    const first = await gate.process([{ id: 'n1', tool: 'note', args: { text: 'hi' } }], {
      turn: 1,
      context: {},
    });
    const second = (await again) as Awaited<typeof first>;
    expect(runs).toEqual(['hi']);
    expect(first.executed.map((call) => call.replayed)).toEqual([false]);
    expect(second.executed).toEqual([
      expect.objectContaining({ id: 'n1', replayed: true, result: { written: 'hi' } }),
    ]);
  });
});
