import { createTopology } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { after, drive, MIN, setUp } from './helpers.js';

const pipeline = definePipeline({
  name: 'research',
  owner: 'quant_strategist',
  nodes: [
    { id: 'bull', kind: 'task', agent: 'bullish_researcher' },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher' },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', action: 'self', dependsOn: ['bull', 'bear'] },
  ],
});

function tree(limits: { maxConcurrent?: number; maxChildrenPerAgent?: number } = {}) {
  const topology = createTopology({ maxSpawnDepth: 2, ...limits });
  topology.register({ id: 'ceo_coo' });
  return topology;
}

describe('spawn limits through the topology', () => {
  it('spawns each attempt of a spawn node under the owner, never the self nodes, and finishes them', async () => {
    const topology = tree();
    topology.spawn({ parent: 'ceo_coo', id: 'quant_strategist' });
    const spawned: string[] = [];
    topology.on('spawned', ({ agent }) => spawned.push(`${agent.id}@${agent.depth}<${agent.parent}`));
    const { clock, runner } = setUp((ctx) => ({ spawnId: ctx.spawnId ?? null }), {
      topology,
      spawnId: ({ node, spawn }) => `${node}-${spawn}`,
    });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(spawned).toEqual(['bull-1@2<quant_strategist', 'bear-1@2<quant_strategist']);
    expect(result.ok && result.nodes['bull']).toMatchObject({
      spawns: 1,
      spawnId: 'bull-1',
      output: { spawnId: 'bull-1' },
    });
    expect(result.ok && result.nodes['converge']?.output).toEqual({ spawnId: null });
    expect(topology.running()).toBe(1); // only the strategist
  });

  it('waits for a free slot when the concurrency limit is reached', async () => {
    const topology = tree({ maxConcurrent: 2 });
    topology.spawn({ parent: 'ceo_coo', id: 'quant_strategist' });
    const order: string[] = [];
    topology.on('spawned', ({ agent }) => order.push(`+${agent.id}`));
    topology.on('finished', ({ id }) => order.push(`-${id}`));
    const { clock, runner } = setUp((ctx) => after(clock, MIN, {}, ctx.signal), {
      topology,
      spawnId: ({ node, spawn }) => `${node}-${spawn}`,
    });
    await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(order).toEqual(['+bull-1', '-bull-1', '+bear-1', '-bear-1']);
  });

  it('shares the limits fairly between runs side by side', async () => {
    const topology = tree({ maxConcurrent: 3 });
    for (const owner of ['s1', 's2']) topology.spawn({ parent: 'ceo_coo', id: owner });
    const order: string[] = [];
    topology.on('spawned', ({ agent }) => order.push(agent.id));
    const { clock, runner } = setUp((ctx) => after(clock, MIN, {}, ctx.signal), { topology });
    const [a, b] = await drive(
      clock,
      Promise.all([
        runner.start(pipeline, { runId: 'a', parent: 's1' }),
        runner.start(pipeline, { runId: 'b', parent: 's2' }),
      ]),
    );
    expect(a.ok && a.status).toBe('succeeded');
    expect(b.ok && b.status).toBe('succeeded');
    expect(order).toEqual(['a/bull-1', 'b/bull-1', 'a/bear-1', 'b/bear-1']);
  });

  it('fails a node the tree refuses (depth), without retrying it', async () => {
    const topology = createTopology({ maxSpawnDepth: 1 });
    topology.register({ id: 'ceo_coo' });
    topology.spawn({ parent: 'ceo_coo', id: 'quant_strategist' });
    const { clock, runner, events, calls } = setUp(() => ({}), { topology });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('failed');
    expect(calls).toEqual([]);
    expect(events.failure[0]).toMatchObject({ kind: 'refused', next: 'abort' });
    expect(events.failure[0]?.message).toMatch(/^depth_exceeded/);
  });

  it('stops waiting for a slot when the runner closes', async () => {
    const topology = tree({ maxConcurrent: 1 });
    topology.spawn({ parent: 'ceo_coo', id: 'quant_strategist' });
    const { clock, runner } = setUp(() => new Promise(() => {}), { topology });
    const run = runner.start(pipeline, { runId: 'r1' });
    await drive(clock, Promise.resolve()).catch(() => {});
    expect(topology.waitingSpawns()).toBe(1); // bull waits for the slot; bear waits behind it in its run
    await runner.close();
    expect(await run).toMatchObject({ ok: false, code: 'closed' });
    expect(topology.waitingSpawns()).toBe(0);
    expect(topology.running()).toBe(1);
  });
});
