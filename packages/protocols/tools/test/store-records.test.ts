import { createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createToolGate, type ToolGateEvents } from '../src/index.js';
import { createCampaign, EXPLORING, hpCall, moveCall, storedCall } from './helpers.js';

function gateOn(store: ReturnType<typeof createMemoryStore>) {
  const campaign = createCampaign();
  const gate = createToolGate({ tools: campaign.tools, allowlist: ['move', 'hp_delta'], store });
  const errors: ToolGateEvents['error'][] = [];
  gate.on('error', (event) => errors.push(event));
  return { ...campaign, gate, errors };
}

/** A done entry as a gate writes it for `hpCall(id)` in `turn`, with `patch` applied. */
function doneEntry(id: string, turn: number, patch: Record<string, unknown> = {}) {
  const call = hpCall(id);
  return {
    state: 'done',
    id,
    record: {
      id,
      turn,
      requested: { tool: call.tool, args: call.args },
      outcome: 'executed',
      replayed: false,
    },
    executed: { id, tool: call.tool, args: call.args, result: { hp: 1 }, replayed: false },
    ...patch,
  };
}

describe('records read from a store', () => {
  it('replays a well-formed record of this turn and id', async () => {
    const store = createMemoryStore();
    const t = gateOn(store);
    await store.set('parley:tools:1:c1', storedCall(doneEntry('c1', 1)));
    const result = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(result.executed[0]).toMatchObject({ replayed: true, result: { hp: 1 } });
  });

  it.each([
    ['another call id', doneEntry('c9', 1)],
    ['another turn', doneEntry('c1', 2)],
    [
      'an unknown failure code',
      {
        ...doneEntry('c1', 1, { executed: undefined }),
        record: { ...doneEntry('c1', 1).record, outcome: 'error' },
        failed: { id: 'c1', tool: 'hp_delta', status: 'error', reason: 'x', code: 'nope' },
      },
    ],
    ['content that is not text', doneEntry('c1', 1, { content: 7 })],
    ['a claim without a tool', { state: 'executing', startedAt: 0 }],
    ['an unknown state', { state: 'finished' }],
    ['no id', doneEntry('c1', 1, { id: 7 })],
    [
      'a request without a tool name',
      { ...doneEntry('c1', 1), record: { ...doneEntry('c1', 1).record, requested: { args: {} } } },
    ],
  ])(
    '[CALLID-07] refuses a stored record holding %s as outcome_unknown, reporting it, running nothing',
    async (_name, entry) => {
      const store = createMemoryStore();
      const t = gateOn(store);
      await store.set('parley:tools:1:c1', storedCall(entry));
      const result = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
      expect(result.executed).toEqual([]);
      expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'outcome_unknown', status: 'error' });
      expect(t.errors.map((event) => event.stage)).toEqual(['store']);
      expect(t.runs).toEqual([]);
    },
  );
});

describe('records of the previous format (parley.tools.call, format 1)', () => {
  it('answers a call left executing in the previous format as outcome_unknown, running nothing', async () => {
    const store = createMemoryStore();
    const t = gateOn(store);
    await store.set('parley:tools:1:c1', storedCall({ state: 'executing', tool: 'hp_delta', startedAt: 0 }));
    const result = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'outcome_unknown' });
    expect(t.runs).toEqual([]);
    expect(t.errors).toEqual([]);
  });

  it.each([
    [
      'a call record of another format version',
      { ...(storedCall(doneEntry('c1', 1)) as object), version: 2 },
    ],
    [
      'a claim record of another format version',
      { kind: 'parley.kernel.claim', version: 2, data: {}, lease: null, fence: 1, deadlineAt: null },
    ],
    [
      'a claim of another call id',
      {
        kind: 'parley.kernel.claim',
        version: 1,
        data: { id: 'c9', digest: 'x', owner: 'tools-x', claimedAt: 0, settled: false, result: null },
        lease: null,
        fence: 1,
        deadlineAt: null,
      },
    ],
  ])('refuses %s as outcome_unknown with an error event, never overwriting it', async (_name, record) => {
    const store = createMemoryStore();
    const t = gateOn(store);
    await store.set('parley:tools:1:c1', record);
    const result = await t.gate.process([hpCall('c1')], { turn: 1, context: EXPLORING });
    expect(result.feedback.failed_calls[0]).toMatchObject({ code: 'outcome_unknown' });
    expect(t.errors.map((event) => event.stage)).toEqual(['store']);
    expect(t.runs).toEqual([]);
    expect(await store.get('parley:tools:1:c1')).toEqual(record);
  });
});

describe('a batch delivered twice', () => {
  it('[CALLID-08] runs each call of a batch delivered twice at once exactly once, and replays the second delivery', async () => {
    const t = gateOn(createMemoryStore());
    const batch = [hpCall('c1'), moveCall('c2')];
    const [first, second] = await Promise.all([
      t.gate.process(batch, { turn: 1, context: EXPLORING }),
      t.gate.process(batch, { turn: 1, context: EXPLORING }),
    ]);
    expect(t.runs.map((run) => run.tool)).toEqual(['hp_delta', 'move']);
    expect(first.executed.map((call) => call.replayed)).toEqual([false, false]);
    expect(second.executed.map((call) => call.replayed)).toEqual([true, true]);
    expect(second.feedback.failed_calls).toEqual([]);
  });

  it('[CALLID-08] replays a batch delivered again after a restart on the same store', async () => {
    const store = createMemoryStore();
    const batch = [hpCall('c1'), moveCall('c2')];
    const before = gateOn(store);
    await before.gate.process(batch, { turn: 1, context: EXPLORING });
    const after = gateOn(store);
    const again = await after.gate.process(batch, { turn: 1, context: EXPLORING });
    expect(after.runs).toEqual([]);
    expect(again.executed.map((call) => [call.id, call.replayed])).toEqual([
      ['c1', true],
      ['c2', true],
    ]);
  });
});
