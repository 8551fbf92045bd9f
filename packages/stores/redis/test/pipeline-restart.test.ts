// A pipeline run on a real redis-server: the runner's process stops mid-run, Redis itself is
// killed (SIGKILL) and restarted from its append-only file, and a new runner resumes the run from
// the store without re-running the nodes that finished. And a cron trigger run by two processes,
// each with its own connection: every scheduled time fires once, also across a Redis restart.
import { createManualClock } from '@parley/core';
import {
  type CronFire,
  createCronTrigger,
  createPipelineRunner,
  definePipeline,
  type NodeContext,
} from '@parley/pipeline';
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
      runnerId: 'host-1', // the restarted process keeps its id: it takes its nodes back at once
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
      runnerId: 'host-1',
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

describe('a cron trigger on Redis', () => {
  it('fires each time once between two processes, and catches up once after Redis restarted', async () => {
    const HOUR = 3_600_000;
    const START = Date.UTC(2026, 3, 10);
    const clock = createManualClock({ now: START });
    const fired: string[] = [];
    const errors: unknown[] = [];
    const start = (name: string) =>
      createCronTrigger({
        cron: '0 * * * *',
        clock,
        store: createRedisStore({ redis: server.client(), prefix: 'cron:' }),
        key: 'nightly',
        onFire: (at: number, fire: CronFire) =>
          void fired.push(`${name}@${(at - START) / HOUR}+${fire.skipped}`),
        onError: (error: unknown) => void errors.push(error),
      });
    let a = start('a');
    let b = start('b');
    for (let hour = 1; hour <= 3; hour++) {
      clock.advance(HOUR);
      await Promise.all([a.idle(), b.idle()]);
    }
    expect(fired.map((fire) => fire.split('@')[1]).sort()).toEqual(['1+0', '2+0', '3+0']);
    a.stop();
    b.stop();

    // Both processes and Redis go down; two hours pass; both come back on the restarted server.
    server.disconnectClients();
    await server.kill();
    clock.advance(2 * HOUR);
    await server.start();
    fired.length = 0;
    a = start('a');
    b = start('b');
    clock.advance(0);
    await until(() => fired.length === 1, 20_000, 'the catch-up fire');
    await Promise.all([a.idle(), b.idle()]);
    expect(fired.map((fire) => fire.split('@')[1])).toEqual(['5+1']); // 05:00, standing for 04:00
    expect(errors).toEqual([]);
    a.stop();
    b.stop();
  });
});
