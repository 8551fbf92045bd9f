import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { drive, flush, MIN, setUp } from './helpers.js';

const pipeline = definePipeline({
  name: 'approve',
  nodes: [
    { id: 'plan', kind: 'task', agent: 'quant_strategist' },
    { id: 'approve', kind: 'approval', channel: '#approvals', dependsOn: ['plan'], timeoutMs: 60 * MIN },
    { id: 'execute', kind: 'task', agent: 'executor', dependsOn: ['approve'] },
  ],
});

describe('approval nodes', () => {
  it('waits for a decision and continues when approved', async () => {
    const { clock, runner, events, calls } = setUp(() => ({}));
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(events.approval).toEqual([
      { runId: 'r1', node: 'approve', channel: '#approvals', deadlineAt: 60 * MIN },
    ]);
    clock.advance(12 * MIN);
    expect(
      await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chairman', reason: 'Go' }),
    ).toEqual({ ok: true });
    const result = await drive(clock, run);
    expect(result.ok && result.status).toBe('succeeded');
    expect(result.ok && result.nodes['approve']?.output).toEqual({
      approved: true,
      by: 'chairman',
      reason: 'Go',
      decidedAt: 12 * MIN,
    });
    expect(calls).toEqual(['plan#1', 'execute#1']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ends the run rejected when the person rejects, and skips what followed', async () => {
    const { clock, runner } = setUp(() => ({}));
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    await runner.decide(pipeline, 'r1', 'approve', { approved: false, reason: 'not before FOMC' });
    const result = await drive(clock, run);
    expect(result.ok && result.status).toBe('rejected');
    expect(result.ok && result.nodes['approve']).toMatchObject({
      status: 'rejected',
      reason: 'not before FOMC',
    });
    expect(result.ok && result.nodes['execute']?.status).toBe('skipped');
  });

  it('expires at the stored deadline and refuses a decision after it', async () => {
    const { clock, runner, events } = setUp(() => ({}));
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('failed');
    expect(result.ok && result.nodes['approve']).toMatchObject({ status: 'failed', code: 'expired' });
    expect(clock.now()).toBe(60 * MIN);
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true })).toMatchObject({
      ok: false,
      code: 'not_waiting',
    });
    expect(events.refused.map((e) => e.code)).toEqual(['not_waiting']);
  });

  it('decides at the moment of deciding: a decision at the stored deadline expires, whatever the timers did', async () => {
    const a = setUp(() => ({}));
    const run = a.runner.start(pipeline, { runId: 'r1' });
    await flush();
    // another replica on the same store, whose clock already reads the deadline
    const b = setUp(() => ({}), {
      store: a.store,
      clock: createManualClock({ now: 60 * MIN }),
      runnerId: 'b',
    });
    expect(await b.runner.decide(pipeline, 'r1', 'approve', { approved: true })).toMatchObject({
      ok: false,
      code: 'expired',
    });
    const result = await drive(a.clock, run); // woken by the store's watch, before its own timer
    expect(a.clock.now()).toBe(0);
    expect(result.ok && result.nodes['approve']).toMatchObject({ status: 'failed', code: 'expired' });
    expect(b.events.node).toMatchObject([{ node: 'approve', previous: 'waiting', status: 'failed' }]);
  });

  it('refuses decisions on unknown runs and nodes, and a malformed decision', async () => {
    const { clock, runner } = setUp(() => ({}));
    expect(await runner.decide(pipeline, 'nope', 'approve', { approved: true })).toMatchObject({
      code: 'unknown_run',
    });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(await runner.decide(pipeline, 'r1', 'plan', { approved: true })).toMatchObject({
      code: 'unknown_node',
    });
    await expect(runner.decide(pipeline, 'r1', 'approve', {} as never)).rejects.toSatisfy((e) =>
      isParleyError(e, 'invalid_argument'),
    );
    await runner.decide(pipeline, 'r1', 'approve', { approved: true });
    await drive(clock, run);
  });
});
