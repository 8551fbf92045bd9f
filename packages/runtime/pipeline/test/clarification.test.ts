import { createManualClock, createMemoryStore } from '@parley/core';
import { defineArtifacts } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePipeline, type NodeContext } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

// Seed agent-collaboration §4.4: a clarification re-spawn carries the previous report, the missing
// fields and a question (the reference `request_clarification` payload).
const Brief = z.object({ thesis: z.string(), invalidation: z.string() });
const artifacts = defineArtifacts({ 'Bullish_Brief.json': Brief });
const pipeline = definePipeline({
  name: 'clarify',
  nodes: [{ id: 'bull', kind: 'task', agent: 'bullish_researcher', output: 'Bullish_Brief.json' }],
});

const clarification = {
  previous_report: { thesis: 'up' },
  missing_fields: ['invalidation'],
  question: 'Fill in invalidation and deliver Bullish_Brief.json again, complete.',
};

describe('a clarification re-run', () => {
  it('carries the previous report, the missing fields and the question', async () => {
    const retries: NodeContext['retry'][] = [];
    const { clock, runner } = setUp(
      (ctx) => {
        retries.push(ctx.retry);
        return ctx.retry === undefined ? { thesis: 'up' } : { thesis: 'up', invalidation: '< 60k' };
      },
      { artifacts },
    );
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(retries[1]).toMatchObject({
      kind: 'invalid_output',
      missingFields: ['invalidation'],
      clarification,
    });
  });

  it('keeps the clarification in the store, so a restarted runner asks the same', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const retries: NodeContext['retry'][] = [];
    const work = (ctx: NodeContext): unknown => {
      retries.push(ctx.retry);
      if (ctx.attempt === 1) return { thesis: 'up' };
      return after(clock, 5 * MIN, { thesis: 'up', invalidation: '< 60k' }, ctx.signal);
    };
    const first = setUp(work, { clock, store, artifacts, runnerId: 'p1' });
    const run = first.runner.start(pipeline, { runId: 'r1' });
    await flush(); // attempt 2 is running when the process stops
    await first.runner.close();
    await run;
    const second = setUp(work, { clock, store, artifacts, runnerId: 'p1' });
    const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(second.calls).toEqual(['bull#3']);
    expect(retries[2]).toMatchObject({
      kind: 'invalid_output',
      missingFields: ['invalidation'],
      clarification,
    });
    expect(result.ok && result.nodes['bull']?.retry).toBeUndefined(); // cleared once done
  });
});
