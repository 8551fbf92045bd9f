import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { after, drive, MIN, setUp } from './helpers.js';

const diamond = definePipeline({
  name: 'diamond',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['intel'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['intel'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', action: 'self', dependsOn: ['bull', 'bear'] },
  ],
});

describe('the scheduler', () => {
  it('runs independent branches side by side and joins them', async () => {
    const started: string[] = [];
    const { clock, runner, events } = setUp((ctx) => {
      started.push(`${ctx.node.id}@${clock.now() / MIN}`);
      return after(clock, (ctx.node.id === 'bear' ? 8 : 5) * MIN, {
        by: ctx.node.agent,
        saw: Object.keys(ctx.outputs),
      });
    });
    const result = await drive(clock, runner.start(diamond, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(started).toEqual(['intel@0', 'bull@5', 'bear@5', 'converge@13']);
    expect(result.ok && result.nodes['converge']?.output).toEqual({
      by: 'quant_strategist',
      saw: ['intel', 'bull', 'bear'],
    });
    expect(events.node.filter((e) => e.node === 'bull').map((e) => e.status)).toEqual(['running', 'done']);
    expect(events.run.map((e) => e.status)).toEqual(['started', 'succeeded']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('skips a node whose condition is false, and its dependents', async () => {
    const gated = definePipeline({
      name: 'gated',
      nodes: [
        { id: 'review', kind: 'task', agent: 'reviewer' },
        {
          id: 'analysis',
          kind: 'task',
          agent: 'analyst',
          dependsOn: ['review'],
          condition: { node: 'review', field: 'verdict', op: '==', value: 'pass' },
        },
        { id: 'publish', kind: 'task', agent: 'publisher', dependsOn: ['analysis'] },
        {
          id: 'log',
          kind: 'task',
          agent: 'logger',
          dependsOn: ['review'],
          condition: { node: 'review', field: 'verdict', op: '!=', value: 'pass' },
        },
      ],
    });
    const { clock, runner, calls } = setUp((ctx) => (ctx.node.id === 'review' ? { verdict: 'block' } : {}));
    const result = await drive(clock, runner.start(gated, { runId: 'r1' }));
    expect(calls).toEqual(['review#1', 'log#1']);
    expect(result.ok && result.status).toBe('succeeded');
    expect(result.ok && result.nodes['analysis']).toMatchObject({
      status: 'skipped',
      reason: 'condition review.verdict == "pass" is false (block)',
    });
    expect(result.ok && result.nodes['publish']).toMatchObject({
      status: 'skipped',
      reason: 'analysis skipped',
    });
  });

  it('reads a condition on a non-object output as undefined', async () => {
    const gated = definePipeline({
      name: 'gated',
      nodes: [
        { id: 'a', kind: 'task', agent: 'x' },
        {
          id: 'b',
          kind: 'task',
          agent: 'y',
          dependsOn: ['a'],
          condition: { node: 'a', field: 'f', op: '!=', value: 'z' },
        },
      ],
    });
    const { clock, runner, calls } = setUp(() => 'text');
    await drive(clock, runner.start(gated, { runId: 'r1' }));
    expect(calls).toEqual(['a#1', 'b#1']);
  });

  it('keeps at most maxParallelPerRun nodes of one run running at once', async () => {
    let running = 0;
    let most = 0;
    const { clock, runner } = setUp(
      async () => {
        running++;
        most = Math.max(most, running);
        await after(clock, MIN, null);
        running--;
        return null;
      },
      { maxParallelPerRun: 1 },
    );
    const result = await drive(clock, runner.start(diamond, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(most).toBe(1);
    expect(clock.now()).toBe(4 * MIN);
  });

  it('passes the run input to every node', async () => {
    const inputs: unknown[] = [];
    const { clock, runner } = setUp((ctx) => inputs.push(ctx.input));
    await drive(clock, runner.start(diamond, { runId: 'r1', input: { market: 'BTC/USDT' } }));
    expect(inputs).toEqual(Array(4).fill({ market: 'BTC/USDT' }));
  });
});
