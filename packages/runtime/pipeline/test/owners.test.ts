import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

// Issue 31, reproduction 3: two runners with the default runnerId on one store.
const pipeline = definePipeline({
  name: 'owners',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['intel'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['intel'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull', 'bear'] },
  ],
});

describe('runners with the default runnerId', () => {
  it('get distinct owner ids, so a node never runs in two of them at once', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const running = new Map<string, number>();
    let most = 0;
    const work = async (ctx: NodeContext): Promise<unknown> => {
      const now = (running.get(ctx.node.id) ?? 0) + 1;
      running.set(ctx.node.id, now);
      most = Math.max(most, now);
      try {
        return await after(clock, 5 * MIN, { node: ctx.node.id }, ctx.signal);
      } finally {
        running.set(ctx.node.id, (running.get(ctx.node.id) ?? 1) - 1);
      }
    };
    const a = setUp(work, { clock, store });
    const b = setUp(work, { clock, store });
    const owners = new Set<string>();
    for (const { runner } of [a, b])
      runner.on('node', async (e) => {
        const owner = (await runner.snapshot(pipeline, 'r1'))?.[e.node]?.owner;
        if (e.status === 'running' && owner !== undefined) owners.add(owner);
      });
    const started = a.runner.start(pipeline, { runId: 'r1' });
    await flush(); // the run's header is stored
    const [ra, rb] = await drive(clock, Promise.all([started, b.runner.resume(pipeline, { runId: 'r1' })]));
    expect(ra.ok && ra.status).toBe('succeeded');
    expect(rb.ok && rb.status).toBe('succeeded');
    expect(most).toBe(1);
    expect([...a.calls, ...b.calls].sort()).toEqual(['bear#1', 'bull#1', 'converge#1', 'intel#1']);
    expect(owners.size).toBeGreaterThan(0);
    expect(owners.has('runner')).toBe(false);
    expect([...owners].every((owner) => owner.startsWith('runner-'))).toBe(true);
  });
});
