import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext, type RunResult } from '../src/index.js';
import { crashingStore, drive, flush, setUp } from './helpers.js';

// Issue 31: nothing half-applied survives a crash. A process crashes at its Nth write to the store
// (before the write lands, or after it landed but before the process heard so), for every N of a
// whole run; a restarted process (same runner id) resumes the run and finishes it without running
// any node that was done at the crash again, and with every node done exactly once in the store.
const pipeline = definePipeline({
  name: 'crash',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['intel'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['intel'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull', 'bear'] },
    { id: 'review', kind: 'review', agent: 'reviewer', reviews: 'converge', dependsOn: ['converge'] },
    { id: 'approve', kind: 'approval', dependsOn: ['review'] },
  ],
});

const work = (ctx: NodeContext): unknown =>
  ctx.node.kind === 'review'
    ? ctx.revision === undefined && ctx.outputs['converge'] === 'thesis 0'
      ? { verdict: 'revise', issues: [{ description: 'no stop loss' }] }
      : { verdict: 'pass' }
    : ctx.node.id === 'converge'
      ? `thesis ${ctx.revision?.round ?? 0}`
      : ctx.node.id;

/**
 * Drives a run to its end, deciding the approval as soon as it is announced. A decision the crashed
 * store does not take stops the host's process too.
 */
async function runToEnd(setup: ReturnType<typeof setUp>, call: Promise<RunResult>): Promise<RunResult> {
  const off = setup.runner.on('approval', ({ runId }) => {
    setup.runner.decide(pipeline, runId, 'approve', { approved: true }).catch(() => setup.runner.close());
  });
  try {
    return await drive(setup.clock, call);
  } finally {
    off();
  }
}

/** How many writes a whole run makes. */
async function writesOfOneRun(): Promise<number> {
  const clock = createManualClock();
  const inner = createMemoryStore({ clock });
  let writes = 0;
  const counting: Store = {
    ...inner,
    compareAndSet: (...args) => {
      writes += 1;
      return inner.compareAndSet(...args);
    },
  };
  const setup = setUp(work, { clock, store: counting });
  const result = await runToEnd(setup, setup.runner.start(pipeline, { runId: 'r1' }));
  expect(result).toMatchObject({ ok: true, status: 'succeeded' });
  return writes;
}

describe('a crash between any two writes', () => {
  for (const mode of ['before', 'after'] as const) {
    it(`resumes to the end without re-running a done node (crash ${mode} the write lands)`, async () => {
      const total = await writesOfOneRun();
      expect(total).toBeGreaterThan(10);
      for (let at = 1; at <= total; at++) {
        const clock = createManualClock();
        const inner = createMemoryStore({ clock });
        const first = setUp(work, { clock, store: crashingStore(inner, at, mode), runnerId: 'p1' });
        const crashed = await runToEnd(first, first.runner.start(pipeline, { runId: 'r1' }));
        await first.runner.close();
        expect(crashed.ok || crashed.code, `write ${at}`).toMatch(/^(store_failed|closed)$/);
        const header = await inner.get('pipeline:run:r1');
        if (header === undefined) continue; // the crash came before the run existed
        const second = setUp(work, { clock, store: inner, runnerId: 'p1' });
        const before = await second.runner.snapshot(pipeline, 'r1');
        const done = Object.entries(before ?? {}).filter(([, r]) => r.status === 'done');
        // an approval left waiting was announced by the crashed process: the host decides it now
        if (before?.['approve']?.status === 'waiting')
          expect(await second.runner.decide(pipeline, 'r1', 'approve', { approved: true })).toEqual({
            ok: true,
          });
        const resumed = await runToEnd(second, second.runner.resume(pipeline, { runId: 'r1' }));
        await flush();
        expect(resumed, `write ${at}`).toMatchObject({ ok: true, status: 'succeeded' });
        for (const [id, record] of done) {
          const calls = second.calls.filter((c) => c.startsWith(`${id}#`));
          // converge done before the reviewer's revise runs once more: that is its revision, not a re-run
          const revisionOwed = id === 'converge' && record.revision === 0 ? 1 : 0;
          expect(calls.length, `${id} after write ${at}`).toBeLessThanOrEqual(revisionOwed);
          if (revisionOwed === 0) expect(resumed.ok && resumed.nodes[id], `${id}`).toEqual(record);
        }
        const outputs = resumed.ok ? resumed.nodes : {};
        expect(outputs['converge']?.output, `write ${at}`).toBe('thesis 1');
        expect(Object.values(outputs).every((r) => r.status === 'done' && r.owner === undefined)).toBe(true);
        expect(clock.pendingTimers(), `write ${at}`).toBe(0);
      }
    });
  }
});

describe('a node record this version does not read', () => {
  it('refuses a record of another format version, runs nothing for it and leaves it as it is', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const first = setUp(work, { clock, store, runnerId: 'p1' });
    const run = first.runner.start(pipeline, { runId: 'r1' });
    await flush();
    await first.runner.close();
    await run;
    const newer = {
      kind: 'parley.pipeline.node',
      version: 2, // written by a later release
      data: { status: 'pending', attempts: 0 },
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    await store.set('pipeline:node:r1:bull', newer);
    const second = setUp(work, { clock, store, runnerId: 'p1' });
    const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(result).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(result.ok || result.message).toContain('record format 2 of parley.pipeline.node');
    expect(second.events.refused).toMatchObject([{ code: 'corrupt_record', key: 'pipeline:node:r1:bull' }]);
    expect(second.calls.filter((c) => c.startsWith('bull#'))).toEqual([]);
    expect(await store.get('pipeline:node:r1:bull')).toEqual(newer);
  });

  it('refuses a decision on an approval whose record is of another kind', async () => {
    const { runner, store } = setUp(work);
    await store.set('pipeline:run:r1', {
      kind: 'parley.pipeline.run',
      version: 1,
      data: { v: 1, name: 'crash', digest: pipeline.digest, status: 'running', createdAt: 0 },
      lease: null,
      fence: 0,
      deadlineAt: null,
    });
    const other = {
      kind: 'parley.turns.head',
      version: 2,
      data: {},
      lease: null,
      fence: 0,
      deadlineAt: null,
    };
    await store.set('pipeline:node:r1:approve', other);
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true })).toMatchObject({
      ok: false,
      code: 'corrupt_record',
    });
    expect(await store.get('pipeline:node:r1:approve')).toEqual(other);
  });
});

describe('a store that fails once while a review runs', () => {
  it('stops the run with store_failed (never escalates the review for it), and a resume finishes it', async () => {
    const clock = createManualClock();
    const inner = createMemoryStore({ clock });
    let failed = 0;
    const flaky: Store = {
      ...inner,
      compareAndSet: (key, expected, value, options) => {
        const data = (value as { data?: { status?: string } } | undefined)?.data;
        if (key === 'pipeline:node:r1:review' && data?.status === 'running' && failed++ === 0)
          return Promise.reject(new Error('connection reset'));
        return inner.compareAndSet(key, expected, value, options);
      },
    };
    const first = setUp(work, { clock, store: flaky, runnerId: 'p1' });
    const result = await runToEnd(first, first.runner.start(pipeline, { runId: 'r1' }));
    expect(result).toMatchObject({ ok: false, code: 'store_failed' });
    expect(first.events.node.filter((e) => e.node === 'review')).toEqual([]); // not escalated
    const second = setUp(work, { clock, store: inner, runnerId: 'p1' });
    const resumed = await runToEnd(second, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(resumed).toMatchObject({ ok: true, status: 'succeeded' });
    expect(second.calls[0]).toBe('review#1');
  });
});
