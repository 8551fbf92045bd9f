import { createManualClock, createMemoryStore, type ManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

// Issue 31, reproduction 1: converge → review (maxRevisions 3) → publish, the reviewer says
// revise twice then pass, and the process stops while the second revision of converge runs.
const pipeline = definePipeline({
  name: 'revise',
  nodes: [
    { id: 'converge', kind: 'task', agent: 'quant_strategist', action: 'self', timeoutMs: 10 * MIN },
    {
      id: 'review',
      kind: 'review',
      agent: 'reviewer',
      reviews: 'converge',
      dependsOn: ['converge'],
      maxRevisions: 3,
      timeoutMs: 2 * MIN,
    },
    {
      id: 'publish',
      kind: 'task',
      agent: 'publisher',
      action: 'self',
      dependsOn: ['review'],
      condition: { node: 'review', field: 'verdict', op: '==', value: 'pass' },
      onFailure: { error: { retries: 0, after: 'abort' } },
    },
  ],
});

interface Seen {
  readonly reviewed: unknown[];
  readonly revisions: unknown[];
  readonly published: unknown[];
}

/**
 * Work shared by both processes: converge takes 5 min and names its revision round, the reviewer
 * (1 min) says revise on its first two calls and pass after, publish fails when told to.
 */
function script(clock: ManualClock, seen: Seen, failPublish: boolean) {
  return (ctx: NodeContext): Promise<unknown> => {
    if (ctx.node.id === 'converge') {
      seen.revisions.push(ctx.revision === undefined ? null : ctx.revision);
      return after(clock, 5 * MIN, `thesis r${ctx.revision?.round ?? 0}`, ctx.signal);
    }
    if (ctx.node.id === 'review') {
      seen.reviewed.push(ctx.outputs['converge']);
      const round = seen.reviewed.length;
      const verdict =
        round <= 2
          ? { verdict: 'revise', issues: [{ field: 'stop_loss', description: `round ${round}: no stop` }] }
          : { verdict: 'pass' };
      return after(clock, MIN, verdict, ctx.signal);
    }
    seen.published.push(ctx.outputs['converge']);
    return failPublish ? Promise.reject(new Error('publish failed')) : Promise.resolve('published');
  };
}

/** Starts the run and stops its process at `stopAt` minutes (14: converge's second revision runs). */
async function startAndStop(failPublish: boolean, nextRunnerId = 'p1', stopAt = 14) {
  const clock = createManualClock();
  const store = createMemoryStore({ clock });
  const seen: Seen = { reviewed: [], revisions: [], published: [] };
  const first = setUp(script(clock, seen, failPublish), { clock, store, runnerId: 'p1' });
  const run = first.runner.start(pipeline, { runId: 'r1' });
  // converge 0–5, review 5–6 (revise), converge r1 6–11, review 11–12 (revise), converge r2 from 12
  for (let minute = 0; minute < stopAt; minute++) {
    await flush();
    clock.advance(MIN);
  }
  await flush();
  await first.runner.close();
  expect(await run).toMatchObject({ ok: false, code: 'closed' });
  const second = setUp(script(clock, seen, failPublish), { clock, store, runnerId: nextRunnerId });
  const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
  return { seen, result, second, clock };
}

describe('a run restarted while a review has its target revise', () => {
  it('re-runs the revision with the stored issues and never re-judges the rejected output', async () => {
    const { seen, result, second } = await startAndStop(false);
    expect(result.ok && result.status).toBe('succeeded');
    expect(seen.reviewed).toEqual(['thesis r0', 'thesis r1', 'thesis r2']);
    expect(seen.revisions).toMatchObject([
      null,
      { round: 1, issues: [{ description: 'round 1: no stop' }] },
      { round: 2, issues: [{ description: 'round 2: no stop' }] },
      { round: 2, issues: [{ description: 'round 2: no stop' }] }, // the re-run after the restart
    ]);
    expect(second.calls).toEqual(['converge#4', 'review#3', 'publish#1']);
    expect(seen.published).toEqual(['thesis r2']);
    expect(result.ok && result.nodes['converge']).toMatchObject({ status: 'done', revision: 2 });
  });

  it('keeps the revised node done when the node after the review fails and aborts the run', async () => {
    const { seen, result } = await startAndStop(true);
    expect(result.ok && result.status).toBe('failed');
    expect(seen.published).toEqual(['thesis r2']);
    expect(result.ok && result.nodes['converge']).toMatchObject({ status: 'done', output: 'thesis r2' });
    expect(result.ok && result.nodes['review']).toMatchObject({
      status: 'done',
      output: { verdict: 'pass' },
    });
    expect(result.ok && result.nodes['publish']).toMatchObject({ status: 'failed', code: 'error' });
  });

  it('lets another runner take the review over once its lease ran out, with the stored issues', async () => {
    const { seen, result, second, clock } = await startAndStop(false, 'p2');
    expect(result.ok && result.status).toBe('succeeded');
    expect(seen.reviewed).toEqual(['thesis r0', 'thesis r1', 'thesis r2']);
    expect(seen.revisions.at(-1)).toMatchObject({ round: 2, issues: [{ description: 'round 2: no stop' }] });
    expect(second.calls).toEqual(['converge#4', 'review#3', 'publish#1']);
    // the review's lease covered converge's revision (10 min timeout + 1 min grace from minute 12)
    expect(clock.now()).toBe(23 * MIN + 5 * MIN + MIN);
  });

  it('judges a revised output again when the process stopped while the reviewer judged it', async () => {
    const { seen, result, second } = await startAndStop(false, 'p1', 11); // the review of r1 runs
    expect(result.ok && result.status).toBe('succeeded');
    expect(seen.reviewed).toEqual(['thesis r0', 'thesis r1', 'thesis r1']); // the script passes call 3
    expect(second.calls).toEqual(['review#3', 'publish#1']); // converge's revision is not run again
    expect(seen.published).toEqual(['thesis r1']);
  });
});
