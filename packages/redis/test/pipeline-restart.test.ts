// A pipeline run on a real redis-server: the runner's process stops mid-run, Redis itself is
// killed (SIGKILL) and restarted from its append-only file, and a new runner resumes the run from
// the store without re-running the nodes that finished.
import { createManualClock } from '@parley/core';
import { createPipelineRunner, definePipeline, type NodeContext } from '@parley/pipeline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/index.js';
import { type RedisServer, startRedis, until } from './helpers.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis({ persistent: true });
});
afterEach(() => server.disconnectClients());
afterAll(async () => {
  await server.stop();
});

const pipeline = definePipeline({
  name: 'quant',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['intel'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['intel'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull', 'bear'] },
  ],
});

describe('a pipeline runner on Redis', () => {
  it('resumes after its process and the Redis server restarted, without re-running finished nodes', async () => {
    const clock = createManualClock();
    const calls: string[] = [];
    const record = (ctx: NodeContext): void => void calls.push(`${ctx.node.id}#${ctx.attempt}`);
    const first = createPipelineRunner({
      store: createRedisStore({ redis: server.client(), prefix: 'pipes:' }),
      clock,
      work: (ctx) => {
        record(ctx);
        // intel answers at once; bull and bear are still working when the process stops
        return ctx.node.id === 'intel' ? { market: 'BTC/USDT' } : new Promise(() => {});
      },
    });
    const run = first.start(pipeline, { runId: 'r1', input: { day: '2026-04-10' } });
    await until(() => calls.length === 3, 20_000, 'bull and bear to start');
    await first.close();
    expect(await run).toMatchObject({ ok: false, code: 'closed' });

    server.disconnectClients();
    await server.kill();
    await server.start();

    const second = createPipelineRunner({
      store: createRedisStore({ redis: server.client(), prefix: 'pipes:' }),
      clock,
      work: (ctx) => {
        record(ctx);
        return { from: ctx.node.id, inputs: Object.keys(ctx.outputs).sort(), input: ctx.input ?? null };
      },
    });
    const result = await second.resume(pipeline, { runId: 'r1' });
    await second.close();
    expect(result.ok && result.status).toBe('succeeded');
    expect(calls).toEqual(['intel#1', 'bull#1', 'bear#1', 'bull#2', 'bear#2', 'converge#1']);
    expect(result.ok && result.nodes['converge']?.output).toEqual({
      from: 'converge',
      inputs: ['bear', 'bull', 'intel'],
      input: { day: '2026-04-10' },
    });
    expect(result.ok && result.nodes['intel']).toMatchObject({ status: 'done', attempts: 1 });
  });
});
