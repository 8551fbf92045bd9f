import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext } from '../src/index.js';
import { drive, flush, setUp } from './helpers.js';

const pipeline = definePipeline({
  name: 'quant',
  nodes: [
    { id: 'bull', kind: 'task', agent: 'bullish_researcher' },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', action: 'self', dependsOn: ['bull'] },
    {
      id: 'review',
      kind: 'review',
      agent: 'reviewer',
      reviews: 'converge',
      dependsOn: ['converge'],
      maxRevisions: 2,
      escalateTo: 'ceo_coo',
    },
    {
      id: 'after',
      kind: 'task',
      agent: 'analyst',
      dependsOn: ['review'],
      condition: { node: 'review', field: 'verdict', op: '==', value: 'pass' },
    },
  ],
});

const revise = (target: string, field: string) => ({
  verdict: 'revise',
  revise_target: target,
  issues: [{ severity: 'major', field, description: `fix ${field}` }],
});

/** Work whose reviewer gives the listed verdicts in order; the others report their revision. */
function scripted(verdicts: unknown[]) {
  let reviews = 0;
  return (ctx: NodeContext): unknown => {
    if (ctx.node.kind === 'review') return verdicts[Math.min(reviews++, verdicts.length - 1)];
    return { node: ctx.node.id, round: ctx.revision?.round ?? 0, issues: ctx.revision?.issues.length ?? 0 };
  };
}

describe('review nodes', () => {
  it('re-runs the reviewed node with the issues on revise, then passes', async () => {
    const { clock, runner, calls, events } = setUp(
      scripted([revise('quant_strategist', 'stop_loss'), { verdict: 'pass', score: 0.9 }]),
    );
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(calls).toEqual(['bull#1', 'converge#1', 'review#1', 'converge#2', 'review#2', 'after#1']);
    expect(result.ok && result.nodes['converge']).toMatchObject({
      status: 'done',
      revision: 1,
      output: { round: 1, issues: 1 },
    });
    expect(result.ok && result.nodes['review']?.output).toEqual({ verdict: 'pass', score: 0.9 });
    expect(events.revise).toMatchObject([{ node: 'review', round: 1, max: 2, target: 'quant_strategist' }]);
    expect(events.node.filter((e) => e.node === 'converge').map((e) => `${e.status}/${e.revision}`)).toEqual([
      'running/0',
      'done/0',
      'running/0',
      'done/1',
    ]);
  });

  it('re-runs the upstream node the verdict names, then the reviewed node', async () => {
    const { clock, runner, calls } = setUp(
      scripted([revise('bullish_researcher', 'arguments'), { verdict: 'pass' }]),
    );
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(calls).toEqual([
      'bull#1',
      'converge#1',
      'review#1',
      'bull#2',
      'converge#2',
      'review#2',
      'after#1',
    ]);
    expect(result.ok && result.nodes['bull']).toMatchObject({ revision: 1, output: { round: 1 } });
  });

  it('passes the issues on when they carry fields the gate does not know', async () => {
    const issue = { severity: 'major', field: 'stop_loss', description: 'fix stop_loss', location: 'p2' };
    const { clock, runner, calls } = setUp(
      scripted([{ verdict: 'revise', issues: [issue] }, { verdict: 'pass' }]),
    );
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(calls).toEqual(['bull#1', 'converge#1', 'review#1', 'converge#2', 'review#2', 'after#1']);
    expect(result.ok && result.nodes['converge']).toMatchObject({
      revision: 1,
      output: { round: 1, issues: 1 },
    });
  });

  it('escalates past the revise limit and skips what depended on a pass', async () => {
    const { clock, runner, events } = setUp(scripted([revise('quant_strategist', 'stop_loss')]));
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('escalated');
    expect(result.ok && result.nodes['review']).toMatchObject({
      status: 'escalated',
      code: 'revise_limit',
      escalateTo: 'ceo_coo',
      output: { verdict: 'revise' },
    });
    expect(events.revise.map((e) => e.round)).toEqual([1, 2]);
    expect(result.ok && result.nodes['converge']?.revision).toBe(2);
    expect(result.ok && result.nodes['after']).toMatchObject({
      status: 'skipped',
      reason: 'review escalated',
    });
  });

  it('escalates at once on block, and on a malformed verdict', async () => {
    const blocked = setUp(scripted([{ verdict: 'block', summary: 'risk policy breach' }]));
    const result = await drive(blocked.clock, blocked.runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.nodes['review']).toMatchObject({ status: 'escalated', code: 'blocked' });
    expect(blocked.calls).not.toContain('converge#2');
    const malformed = setUp(scripted([{ verdict: 'maybe' }]));
    const other = await drive(malformed.clock, malformed.runner.start(pipeline, { runId: 'r1' }));
    expect(other.ok && other.nodes['review']).toMatchObject({ status: 'escalated', code: 'invalid_verdict' });
  });

  it('applies the reviewer node failure policy when the reviewer keeps failing', async () => {
    const { clock, runner } = setUp((ctx) => {
      if (ctx.node.kind === 'review') throw new Error('reviewer down');
      return {};
    });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('failed');
    expect(result.ok && result.nodes['review']).toMatchObject({
      status: 'failed',
      code: 'error',
      attempts: 2,
    });
  });

  it('applies the revised node failure policy when a revision fails', async () => {
    let reviews = 0;
    const { clock, runner } = setUp((ctx) => {
      if (ctx.node.kind === 'review')
        return reviews++ === 0 ? revise('quant_strategist', 'x') : { verdict: 'pass' };
      if (ctx.revision !== undefined) throw new Error('cannot revise');
      return {};
    });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('failed');
    expect(result.ok && result.nodes['review']).toMatchObject({
      status: 'failed',
      code: 'error',
      reason: 'cannot revise',
    });
    expect(result.ok && result.nodes['converge']).toMatchObject({ status: 'done', revision: 0, output: {} });
  });
});

describe('review rounds across a restart', () => {
  it('keeps the revise count in the store: a restarted run escalates at the same limit', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    let reviews = 0;
    const work = (ctx: NodeContext): unknown => {
      if (ctx.node.kind !== 'review') return { round: ctx.revision?.round ?? 0 };
      reviews++;
      return reviews === 2 ? new Promise(() => {}) : revise('quant_strategist', 'stop_loss');
    };
    const first = setUp(work, { clock, store });
    const run = first.runner.start(pipeline, { runId: 'r1' });
    await flush(); // one revise round, then the second review hangs
    expect(first.events.revise.map((e) => e.round)).toEqual([1]);
    await first.runner.close();
    await run;
    const second = setUp(work, { clock, store });
    const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(second.events.revise.map((e) => e.round)).toEqual([2]);
    expect(result.ok && result.nodes['review']).toMatchObject({ status: 'escalated', code: 'revise_limit' });
    expect([...first.calls, ...second.calls].filter((c) => c.startsWith('bull'))).toEqual(['bull#1']);
  });
});
