import type { ToolGateContext } from '@parley/conflict';
import { describe, expect, it } from 'vitest';
import { createFakeToolGate } from '../src/index.js';

const context: ToolGateContext<unknown> = {
  state: {},
  attempt: 1,
  proposal: { text: '' },
  applied: [],
  signal: undefined,
};
const call = (id: string, tool = 'move') => ({ id, tool, args: {} });

describe('createFakeToolGate', () => {
  it('executes every call by default, counting runs per id', async () => {
    const gate = createFakeToolGate();
    const result = await gate([call('c1'), call('c2')], context);
    await gate([call('c1')], { ...context, attempt: 2 });
    expect(result).toEqual({
      executed: [
        { id: 'c1', tool: 'move', result: 'ok' },
        { id: 'c2', tool: 'move', result: 'ok' },
      ],
      feedback: { failed_calls: [] },
      deferred: [],
    });
    expect(gate.runs.get('c1')).toBe(2);
    expect(gate.batches.map((b) => b.map((c) => c.id))).toEqual([['c1', 'c2'], ['c1']]);
    expect(gate.contexts.map((c) => c.attempt)).toEqual([1, 2]);
    expect(gate.executed.map((a) => a.id)).toEqual(['c1', 'c2', 'c1']);
  });

  it('defers or fails calls as decided, without running them', async () => {
    const gate = createFakeToolGate((c) =>
      c.tool === 'wipe' ? 'defer' : { status: 'rejected', reason: 'area_locked', disabled_until: 'turn 3' },
    );
    const result = await gate([call('w', 'wipe'), call('m')], context);
    expect(result.deferred).toEqual([{ id: 'w', tool: 'wipe', reason: 'awaiting confirmation' }]);
    expect(result.feedback?.failed_calls).toEqual([
      { id: 'm', tool: 'move', status: 'rejected', reason: 'area_locked', disabled_until: 'turn 3' },
    ]);
    expect(result.executed).toEqual([]);
    expect(gate.runs.size).toBe(0);
  });

  it('takes one decision for every call and a result function', async () => {
    const gate = createFakeToolGate('execute', { result: (c) => ({ moved: c.id }) });
    expect((await gate([call('x')], context)).executed).toEqual([
      { id: 'x', tool: 'move', result: { moved: 'x' } },
    ]);
  });
});
