import { createManualClock } from '@parley/core';
import { defineArtifacts } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePipeline, DEFAULT_FAILURE_POLICIES, type TaskNode } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

const Brief = z.object({ thesis: z.string(), invalidation: z.string() });
const artifacts = defineArtifacts({ 'Bullish_Brief.json': Brief });

function pipeline(node: Partial<TaskNode> = {}) {
  return definePipeline({
    name: 'p',
    nodes: [
      {
        id: 'bull',
        kind: 'task',
        agent: 'bullish_researcher',
        output: 'Bullish_Brief.json',
        timeoutMs: 15 * MIN,
        ...node,
      },
      { id: 'side', kind: 'task', agent: 'other' },
      { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull'] },
    ],
  });
}

describe('the error table', () => {
  it('retries a node that hangs past its timeout, tells it why, and ignores the late result', async () => {
    const retries: unknown[] = [];
    const { clock, runner, events, calls } = setUp(
      (ctx) => {
        if (ctx.node.id !== 'bull') return {};
        retries.push(ctx.retry);
        return ctx.attempt === 1
          ? after(clock, 20 * MIN, { thesis: 'late', invalidation: 'x' })
          : { thesis: 'up', invalidation: '< 60k' };
      },
      { artifacts },
    );
    const result = await drive(clock, runner.start(pipeline(), { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(calls.filter((c) => c.startsWith('bull'))).toEqual(['bull#1', 'bull#2']);
    expect(retries).toEqual([undefined, { kind: 'timeout', message: 'no result within 900000 ms' }]);
    expect(events.failure).toMatchObject([{ node: 'bull', kind: 'timeout', attempt: 1, next: 'retry' }]);
    clock.advance(20 * MIN); // the first attempt answers at last
    await flush();
    expect(events.ignored).toEqual([{ runId: 'r1', node: 'bull', code: 'late_result' }]);
    expect(result.ok && result.nodes['bull']?.output).toEqual({ thesis: 'up', invalidation: '< 60k' });
  });

  it('hands a timed-out attempt an aborted signal, even when it reads the signal only afterwards', async () => {
    const late: { aborted: boolean; reason: unknown }[] = [];
    let resume: (() => void) | undefined;
    const { clock, runner } = setUp(
      async (ctx) => {
        if (ctx.node.id !== 'bull') return {};
        if (ctx.attempt > 1) return { thesis: 'up', invalidation: '< 60k' };
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
        late.push({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
        return { thesis: 'late', invalidation: 'x' };
      },
      { artifacts },
    );
    const result = await drive(clock, runner.start(pipeline(), { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(resume, 'the first attempt of bull is waiting').toBeDefined();
    resume?.();
    await flush();
    expect(late).toEqual([{ aborted: true, reason: new Error('no result within 900000 ms') }]);
  });

  it('asks again with the missing fields when the output fails its artifact schema', async () => {
    const { clock, runner, events } = setUp(
      (ctx) =>
        ctx.node.id !== 'bull'
          ? {}
          : ctx.retry === undefined
            ? { thesis: 'up' }
            : { thesis: 'up', invalidation: ctx.retry.missingFields?.join() },
      { artifacts },
    );
    const result = await drive(clock, runner.start(pipeline(), { runId: 'r1' }));
    expect(events.failure).toMatchObject([
      { kind: 'invalid_output', missingFields: ['invalidation'], next: 'retry' },
    ]);
    expect(result.ok && result.nodes['bull']?.output).toEqual({ thesis: 'up', invalidation: 'invalidation' });
  });

  it('aborts the run after one retry of a model error: running nodes stop, pending ones are skipped', async () => {
    const seen: boolean[] = [];
    const { clock, runner, events } = setUp((ctx) => {
      if (ctx.node.id === 'side') {
        ctx.signal.addEventListener('abort', () => seen.push(true));
        return after(clock, 60 * MIN, {}, ctx.signal);
      }
      throw new Error('529 overloaded');
    });
    const result = await drive(clock, runner.start(pipeline(), { runId: 'r1' }));
    expect(result.ok && result.status).toBe('failed');
    expect(events.failure.map((e) => e.next)).toEqual(['retry', 'abort']);
    expect(result.ok && result.nodes['bull']).toMatchObject({
      status: 'failed',
      code: 'error',
      reason: '529 overloaded',
      attempts: 2,
    });
    expect(result.ok && result.nodes['side']).toMatchObject({ status: 'skipped', reason: 'run aborted' });
    expect(result.ok && result.nodes['converge']).toMatchObject({
      status: 'skipped',
      reason: 'run aborted at bull',
    });
    expect(seen).toEqual([true]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('skips a node by policy and lets the other branches finish', async () => {
    const { clock, runner } = setUp((ctx) => {
      if (ctx.node.id === 'bull') throw new Error('down');
      return {};
    });
    const result = await drive(
      clock,
      runner.start(pipeline({ onFailure: { error: { retries: 0, after: 'skip' } } }), { runId: 'r1' }),
    );
    expect(result.ok && result.status).toBe('succeeded');
    expect(result.ok && result.nodes['bull']).toMatchObject({ status: 'skipped', code: 'error' });
    expect(result.ok && result.nodes['side']?.status).toBe('done');
    expect(result.ok && result.nodes['converge']).toMatchObject({
      status: 'skipped',
      reason: 'bull skipped',
    });
  });

  it('escalates a node by policy and ends the run escalated', async () => {
    const { clock, runner } = setUp((ctx) => (ctx.node.id === 'bull' ? { thesis: 1 } : {}), { artifacts });
    const result = await drive(
      clock,
      runner.start(pipeline({ onFailure: { invalid_output: { retries: 1, after: 'escalate' } } }), {
        runId: 'r1',
      }),
    );
    expect(result.ok && result.status).toBe('escalated');
    expect(result.ok && result.nodes['bull']).toMatchObject({
      status: 'escalated',
      code: 'invalid_output',
      attempts: 2,
    });
  });

  it('refuses an output that is not JSON or names an artifact without a schema', async () => {
    const { clock, runner } = setUp((ctx) => (ctx.node.id === 'bull' ? { n: 1n } : {}), {
      artifacts,
    });
    const result = await drive(clock, runner.start(pipeline({ output: undefined }), { runId: 'r1' }));
    expect(result.ok && result.nodes['bull']).toMatchObject({ status: 'failed', code: 'invalid_output' });
    expect(result.ok && result.nodes['bull']?.reason).toMatch(/not JSON/);
    const second = setUp(() => ({}), { artifacts });
    const other = await drive(
      second.clock,
      second.runner.start(pipeline({ output: 'Memo.json' }), { runId: 'r1' }),
    );
    expect(other.ok && other.nodes['bull']?.reason).toBe('no schema for the artifact Memo.json');
  });

  it('follows the reference defaults: two more tries for a timeout, one for an error, none for a refusal', () => {
    expect(DEFAULT_FAILURE_POLICIES).toEqual({
      timeout: { retries: 2, after: 'abort' },
      error: { retries: 1, after: 'abort' },
      invalid_output: { retries: 2, after: 'abort' },
      refused: { retries: 0, after: 'abort' },
    });
  });

  it('stores a non-Error throw as its text', async () => {
    const clock = createManualClock();
    const { runner } = setUp(
      (ctx) => {
        if (ctx.node.id === 'bull') throw 'plain';
        return undefined;
      },
      { clock },
    );
    const result = await drive(
      clock,
      runner.start(pipeline({ onFailure: { error: { retries: 0, after: 'abort' } } }), { runId: 'r1' }),
    );
    expect(result.ok && result.nodes['bull']?.reason).toBe('plain');
    expect(result.ok && result.nodes['side']?.output).toBeNull(); // undefined is stored as null
  });
});
