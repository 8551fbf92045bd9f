import { createTopology } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext, SESSION_TOOLS, sessionToolsAt } from '../src/index.js';
import { drive, setUp } from './helpers.js';

const MANAGE = ['sessions_spawn', 'subagents', 'sessions_list', 'sessions_history'];

describe('sessionToolsAt', () => {
  // agent-collaboration §4.2: maxSpawnDepth and the tools of a depth-1 and a depth-2 agent.
  it.each([
    [1, 0, SESSION_TOOLS],
    [1, 1, []],
    [2, 0, SESSION_TOOLS],
    [2, 1, MANAGE],
    [2, 2, []],
  ])('with maxSpawnDepth %i gives an agent at depth %i the table’s tools', (max, depth, tools) => {
    expect(sessionToolsAt(depth, max)).toEqual(tools);
  });

  it('never gives sessions_send to a spawned agent, at any depth', () => {
    for (let max = 1; max <= 5; max++)
      for (let depth = 1; depth <= max; depth++)
        expect(sessionToolsAt(depth, max)).not.toContain('sessions_send');
  });
});

const pipeline = definePipeline({
  name: 'tools',
  owner: 'quant_strategist',
  nodes: [
    { id: 'bull', kind: 'task', agent: 'bullish_researcher' },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', action: 'self', dependsOn: ['bull'] },
  ],
});

function quantTree(maxSpawnDepth: number) {
  const topology = createTopology({ maxSpawnDepth });
  topology.register({ id: 'ceo_coo' });
  topology.spawn({ parent: 'ceo_coo', id: 'quant_strategist' });
  return topology;
}

describe('ctx.tools', () => {
  it('tells a spawned researcher (depth 2) it has none and the strategist (depth 1) it may spawn', async () => {
    const tools: Record<string, NodeContext['tools']> = {};
    const { clock, runner } = setUp(
      (ctx) => {
        tools[ctx.node.id] = ctx.tools;
        return {};
      },
      { topology: quantTree(2) },
    );
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(tools).toEqual({ bull: [], converge: MANAGE });
  });

  it('follows the runner’s sessionTools option', async () => {
    const asked: unknown[] = [];
    const { clock, runner } = setUp((ctx) => ({ tools: ctx.tools ?? null }), {
      topology: quantTree(2),
      sessionTools: (agent) => {
        asked.push(agent);
        return agent.depth === 2 ? ['sessions_history'] : [];
      },
    });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.nodes['bull']?.output).toEqual({ tools: ['sessions_history'] });
    expect(asked).toEqual([
      { depth: 2, maxSpawnDepth: 2, node: 'bull', agent: 'bullish_researcher' },
      { depth: 1, maxSpawnDepth: 2, node: 'converge', agent: 'quant_strategist' },
    ]);
  });

  it('is absent without a topology', async () => {
    const seen: unknown[] = [];
    const { clock, runner } = setUp((ctx) => seen.push(ctx.tools));
    await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(seen).toEqual([undefined, undefined]);
  });
});
