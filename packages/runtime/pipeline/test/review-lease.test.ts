import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

// A short review over a slow draft: the reviewer's attempt lease (2 min + 1 min grace) is much
// shorter than one revision of the draft (8 min of a 10 min timeout).
const pipeline = definePipeline({
  name: 'lease',
  nodes: [
    { id: 'draft', kind: 'task', agent: 'writer', timeoutMs: 10 * MIN },
    {
      id: 'review',
      kind: 'review',
      agent: 'editor',
      reviews: 'draft',
      dependsOn: ['draft'],
      timeoutMs: 2 * MIN,
      maxRevisions: 2,
    },
  ],
});

const work =
  (clock: ReturnType<typeof createManualClock>) =>
  (ctx: NodeContext): Promise<unknown> =>
    ctx.node.kind === 'review'
      ? after(
          clock,
          MIN,
          ctx.outputs['draft'] === 'v2'
            ? { verdict: 'pass' }
            : { verdict: 'revise', issues: [{ description: 'too short' }] },
          ctx.signal,
        )
      : after(clock, 8 * MIN, ctx.revision === undefined ? 'v1' : 'v2', ctx.signal);

describe('a review node re-running its target', () => {
  it('keeps its lease, so another runner on the store never takes the review over', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const a = setUp(work(clock), { clock, store, runnerId: 'a', leaseGraceMs: MIN });
    const b = setUp(work(clock), { clock, store, runnerId: 'b', leaseGraceMs: MIN });
    const started = a.runner.start(pipeline, { runId: 'r1' });
    await flush(); // the run's header is stored
    const watching = b.runner.resume(pipeline, { runId: 'r1' });
    const [ra, rb] = await drive(clock, Promise.all([started, watching]));
    expect(ra.ok && ra.status).toBe('succeeded');
    expect(rb.ok && rb.status).toBe('succeeded');
    expect(a.calls).toEqual(['draft#1', 'review#1', 'draft#2', 'review#2']);
    expect(b.calls).toEqual([]); // before the fix, b took the review at 11 min (lease 8 + 3)
    expect(ra.ok && ra.nodes['draft']).toMatchObject({ output: 'v2', revision: 1 });
    expect(clock.now()).toBe(18 * MIN);
  });
});
