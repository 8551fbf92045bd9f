import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext, type TaskNode } from '../src/index.js';
import { crashingStore, drive, flush, MIN, setUp } from './helpers.js';

// Issue 31, the class behind reproductions 1–3: a runner acting on its own idea of a node after
// another runner took the node over. Every write a runner makes to a node is fenced by its lease
// on the node (the durable kernel's token): once another runner took it, the stale one writes
// nothing, and what it does next is decided by what the store holds.
const single = (node: Partial<TaskNode> = {}) =>
  definePipeline({
    name: 'one',
    nodes: [{ id: 'only', kind: 'task', agent: 'x', timeoutMs: MIN, ...node }],
  });

/**
 * Runner a starts the node and its process stalls (its clock never moves, its work hangs); b's
 * clock runs on and b resumes the run. Returns a way to let a's work answer late.
 */
async function stallAndTakeOver(
  workOfB: (ctx: NodeContext) => unknown,
  node: Partial<TaskNode> = {},
  store = createMemoryStore(),
) {
  const pipeline = single(node);
  let answerA: (outcome: { value?: unknown; error?: Error }) => void = () => {};
  const a = setUp(
    () =>
      new Promise((resolve, reject) => {
        answerA = ({ value, error }) => (error === undefined ? resolve(value) : reject(error));
      }),
    { store, runnerId: 'a', leaseGraceMs: 1 },
  );
  const b = setUp(workOfB, { store, runnerId: 'b', leaseGraceMs: 1 });
  const ra = a.runner.start(pipeline, { runId: 'r1' });
  await flush();
  const resultB = await drive(b.clock, b.runner.resume(pipeline, { runId: 'r1' }));
  return {
    a,
    b,
    ra,
    resultB,
    pipeline,
    store,
    answerA: (o: { value?: unknown; error?: Error }) => answerA(o),
  };
}

describe('a runner that paused past its lease', () => {
  it('cannot write its late result: the write is fenced and the other runner’s result stands', async () => {
    const { a, b, ra, resultB, store, answerA } = await stallAndTakeOver(() => 'from b');
    expect(resultB.ok && resultB.nodes['only']).toMatchObject({ status: 'done', output: 'from b' });
    answerA({ value: 'from a' });
    const resultA = await ra;
    expect(a.events.ignored).toEqual([{ runId: 'r1', node: 'only', code: 'lease_lost' }]);
    expect(a.events.node.filter((e) => e.status === 'done')).toEqual([]); // a stored no result
    expect(resultA.ok && resultA.nodes['only']).toMatchObject({ status: 'done', output: 'from b' });
    expect([...a.calls, ...b.calls]).toEqual(['only#1', 'only#2']); // each ran it once, a never again
    const stored = (await store.get('pipeline:node:r1:only')) as { data: unknown; fence: number };
    expect(stored).toMatchObject({ data: { output: 'from b', attempts: 2 }, lease: null, fence: 2 });
  });

  it('neither stores its late failure nor retries the work', async () => {
    const { a, b, ra, answerA } = await stallAndTakeOver(() => 'from b', {
      onFailure: { error: { retries: 3, after: 'skip' } },
    });
    answerA({ error: new Error('late and broken') });
    const resultA = await ra;
    expect(a.calls).toEqual(['only#1']); // no second attempt from the fenced runner
    expect(a.events.ignored).toEqual([{ runId: 'r1', node: 'only', code: 'lease_lost' }]);
    expect(resultA.ok && resultA.nodes['only']).toMatchObject({ status: 'done', output: 'from b' });
    expect(resultA.ok && resultA.nodes['only']?.failures).toEqual({});
    expect(b.calls).toEqual(['only#2']);
  });
});

describe('a node whose outcome is unknown', () => {
  it('is reported and never run again when its work is declared onUnknown: report', async () => {
    const { a, b, ra, resultB, answerA } = await stallAndTakeOver(() => 'from b', { onUnknown: 'report' });
    expect(b.calls).toEqual([]); // a may have run it: b does not run it again
    expect(resultB.ok && resultB.status).toBe('failed');
    expect(resultB.ok && resultB.nodes['only']).toMatchObject({
      status: 'failed',
      code: 'unknown_outcome',
      attempts: 1,
    });
    expect(b.events.node.at(-1)).toMatchObject({ node: 'only', status: 'failed', code: 'unknown_outcome' });
    answerA({ value: 'from a' }); // what a did comes too late to count
    const resultA = await ra;
    expect(a.events.ignored).toEqual([{ runId: 'r1', node: 'only', code: 'lease_lost' }]);
    expect(resultA.ok && resultA.nodes['only']).toMatchObject({ status: 'failed', code: 'unknown_outcome' });
  });

  it('is reported after a restart under the same runner id too, and the done nodes keep their outputs', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const pipeline = definePipeline({
      name: 'pay',
      nodes: [
        { id: 'quote', kind: 'task', agent: 'x' },
        { id: 'pay', kind: 'task', agent: 'x', dependsOn: ['quote'], onUnknown: 'report' },
      ],
    });
    const hang = (ctx: NodeContext) => (ctx.node.id === 'pay' ? new Promise(() => {}) : 'quoted');
    const first = setUp(hang, { clock, store, runnerId: 'p1' });
    const run = first.runner.start(pipeline, { runId: 'r1' });
    await flush();
    await first.runner.close(); // the process stops while pay runs
    await run;
    const second = setUp(() => 'paid again', { clock, store, runnerId: 'p1' });
    const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(second.calls).toEqual([]);
    expect(result.ok && result.status).toBe('failed');
    expect(result.ok && result.nodes['quote']).toMatchObject({ status: 'done', output: 'quoted' });
    expect(result.ok && result.nodes['pay']).toMatchObject({ status: 'failed', code: 'unknown_outcome' });
  });

  it('is run again by default (at least once, never after done)', async () => {
    const { a, b, ra, resultB } = await stallAndTakeOver(() => 'from b');
    expect(b.calls).toEqual(['only#2']);
    expect(resultB.ok && resultB.status).toBe('succeeded');
    await a.runner.close(); // a's process goes away without an answer
    expect(await ra).toMatchObject({ ok: false, code: 'closed' });
    expect(a.calls).toEqual(['only#1']);
  });
});

describe('a lease taken on a node that was not started yet', () => {
  it('is waited out by another runner, which then runs the node once', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const pipeline = single();
    // a stores the run's header and dies before its node's write (write 2)…
    const a = setUp(() => 'from a', { clock, store: crashingStore(store, 2, 'before'), runnerId: 'a' });
    expect(await drive(clock, a.runner.start(pipeline, { runId: 'r1' }))).toMatchObject({
      code: 'store_failed',
    });
    await a.runner.close();
    // …having left a lease alone on the node, as a runner that spawns (its lease is written before
    // the start) or one of an earlier version (lease and start in two writes) leaves it
    const lease = { owner: 'a', token: 1, expiresAt: 2 * MIN }; // the 1 min timeout + 1 min grace
    const record = {
      kind: 'parley.pipeline.node',
      version: 1,
      data: null,
      lease,
      fence: 1,
      deadlineAt: null,
    };
    await store.set('pipeline:node:r1:only', record);
    const b = setUp(() => 'from b', { clock, store, runnerId: 'b', leaseGraceMs: 1 });
    const result = await drive(clock, b.runner.resume(pipeline, { runId: 'r1' }));
    expect(result.ok && result.nodes['only']).toMatchObject({
      status: 'done',
      output: 'from b',
      attempts: 1,
    });
    expect(a.calls).toEqual([]);
    expect(b.calls).toEqual(['only#1']);
    expect(clock.now()).toBe(2 * MIN); // b waited for a's lease to expire
  });
});

describe('a start written with the lease, on a node another runner finished first', () => {
  it('writes only the lease, runs nothing, gives the lease back and reads the result that stands', async () => {
    const clock = createManualClock();
    const pipeline = single();
    // the record another runner left: the same run finished elsewhere
    const elsewhere = createMemoryStore({ clock });
    await drive(
      clock,
      setUp(() => 'from c', { clock, store: elsewhere, runnerId: 'c' }).runner.start(pipeline, {
        runId: 'r1',
      }),
    );
    const done = (await elsewhere.getEntry('pipeline:node:r1:only'))?.value;
    const inner = createMemoryStore({ clock });
    let raced = false;
    const store: Store = {
      ...inner,
      compareAndSet: async (key, ...rest) => {
        if (key === 'pipeline:node:r1:only' && !raced && done !== undefined) {
          raced = true; // c's end lands between b's read and b's lease + start
          await inner.set(key, done);
        }
        return inner.compareAndSet(key, ...rest);
      },
    };
    const b = setUp(() => 'from b', { clock, store, runnerId: 'b' });
    const result = await drive(clock, b.runner.start(pipeline, { runId: 'r1' }));
    expect(raced).toBe(true);
    expect(b.calls).toEqual([]);
    expect(result.ok && result.nodes['only']).toMatchObject({
      status: 'done',
      output: 'from c',
      attempts: 1,
    });
    expect(b.events.ignored).toEqual([{ runId: 'r1', node: 'only', code: 'lost_race' }]);
    expect(b.events.node).toEqual([]); // b moved no node
    expect(await inner.get('pipeline:node:r1:only')).toMatchObject({
      data: { output: 'from c' },
      lease: null,
    });
  });
});
