import { createManualClock, createMemoryStore, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { definePipeline, type NodeContext } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

const pipeline = definePipeline({
  name: 'quant',
  nodes: [
    { id: 'intel', kind: 'task', agent: 'finance_researcher' },
    { id: 'bull', kind: 'task', agent: 'bullish_researcher', dependsOn: ['intel'] },
    { id: 'bear', kind: 'task', agent: 'bearish_researcher', dependsOn: ['intel'] },
    { id: 'converge', kind: 'task', agent: 'quant_strategist', dependsOn: ['bull', 'bear'] },
  ],
});

const slow = (clock: ReturnType<typeof createManualClock>) => (ctx: NodeContext) =>
  after(clock, (ctx.node.id === 'bull' ? 10 : 5) * MIN, { node: ctx.node.id }, ctx.signal);

describe('a restarted runner', () => {
  it('resumes from the store without re-running finished nodes', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const first = setUp(slow(clock), { clock, store });
    const run = first.runner.start(pipeline, { runId: 'r1' });
    await flush();
    clock.advance(7 * MIN); // intel done at 5, bull and bear running
    await flush();
    await first.runner.close(); // the process stops
    expect(await run).toMatchObject({ ok: false, code: 'closed' });
    const second = setUp(slow(clock), { clock, store });
    const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(first.calls).toEqual(['intel#1', 'bull#1', 'bear#1']);
    expect(second.calls).toEqual(['bull#2', 'bear#2', 'converge#1']);
    expect(second.events.run.map((e) => e.status)).toEqual(['resumed', 'succeeded']);
  });

  it('resumes after the store failed between two writes', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    let writes = 0; // the header, intel's lease and start (one write), its end: the fourth is bull's
    const flaky: Store = {
      ...store,
      getEntry: (key) => store.getEntry(key),
      compareAndSet: (...args) =>
        ++writes === 4 ? Promise.reject(new Error('connection reset')) : store.compareAndSet(...args),
    };
    const first = setUp(() => ({}), { clock, store: flaky });
    const failed = await drive(clock, first.runner.start(pipeline, { runId: 'r1' }));
    expect(failed).toMatchObject({
      ok: false,
      code: 'store_failed',
      message: 'The store failed: writing pipeline:node:r1:bull failed: connection reset',
    });
    const second = setUp(() => ({}), { clock, store });
    const result = await drive(clock, second.runner.resume(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect([...first.calls, ...second.calls].filter((c) => c.startsWith('intel'))).toEqual(['intel#1']);
  });

  it('lets two runners on one store share a run: each node runs once', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const a = setUp(slow(clock), { clock, store, runnerId: 'a' });
    const b = setUp(slow(clock), { clock, store, runnerId: 'b' });
    const started = a.runner.start(pipeline, { runId: 'r1' });
    await flush(); // the run's header is stored
    const resumed = b.runner.resume(pipeline, { runId: 'r1' });
    const [ra, rb] = await drive(clock, Promise.all([started, resumed]));
    expect(ra.ok && ra.status).toBe('succeeded');
    expect(rb.ok && rb.status).toBe('succeeded');
    const all = [...a.calls, ...b.calls].sort();
    expect(all).toEqual(['bear#1', 'bull#1', 'converge#1', 'intel#1']);
    expect([...a.events.ignored, ...b.events.ignored].every((e) => e.code === 'lost_race')).toBe(true);
  });

  it('takes over a node whose owner stopped once its lease runs out', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const a = setUp(slow(clock), { clock, store, runnerId: 'a' });
    const run = a.runner.start(pipeline, { runId: 'r1' });
    await flush();
    await a.runner.close();
    await run;
    const b = setUp(slow(clock), { clock, store, runnerId: 'b' });
    const result = await drive(clock, b.runner.resume(pipeline, { runId: 'r1' }));
    expect(result.ok && result.status).toBe('succeeded');
    expect(b.calls[0]).toBe('intel#2');
    expect(clock.now()).toBe(16 * MIN + 20 * MIN); // lease: 15 min timeout + 1 min grace, then 5 + 10 + 5
  });

  it('records one completion when a stalled owner finishes after another runner took its node', async () => {
    const store = createMemoryStore();
    const single = definePipeline({
      name: 'one',
      nodes: [{ id: 'only', kind: 'task', agent: 'x', timeoutMs: MIN }],
    });
    let finishA: (value: string) => void = () => {};
    // a's process stalls (its clock never moves); b's clock runs on
    const a = setUp(() => new Promise((resolve) => (finishA = resolve)), {
      store,
      runnerId: 'a',
      leaseGraceMs: 1,
    });
    const b = setUp(() => 'from b', { store, runnerId: 'b', leaseGraceMs: 1 });
    const ra = a.runner.start(single, { runId: 'r1' });
    await flush();
    const resultB = await drive(b.clock, b.runner.resume(single, { runId: 'r1' }));
    expect(b.clock.now()).toBe(MIN + 1); // b waited for a's lease
    expect(resultB.ok && resultB.nodes['only']).toMatchObject({ status: 'done', output: 'from b' });
    finishA('from a'); // the duplicate completion arrives
    const resultA = await ra;
    expect(a.events.ignored).toEqual([{ runId: 'r1', node: 'only', code: 'lease_lost' }]); // fenced off
    expect(resultA.ok && resultA.nodes['only']?.output).toBe('from b');
    expect(a.clock.pendingTimers()).toBe(0);
    await a.runner.close();
  });
});

describe('refusals on start and resume', () => {
  it('refuses a corrupt stored record and leaves it as it was', async () => {
    const { clock, store, runner, events } = setUp(() => ({}));
    await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    await store.set('pipeline:node:r1:bull', { v: 1, status: 'exploded' });
    const header = (await store.get('pipeline:run:r1')) as { data: Record<string, unknown> };
    await store.set('pipeline:run:r1', { ...header, data: { ...header.data, status: 'running' } });
    const result = await runner.resume(pipeline, { runId: 'r1' });
    expect(result).toMatchObject({ ok: false, code: 'corrupt_record' });
    expect(events.refused).toMatchObject([{ code: 'corrupt_record', key: 'pipeline:node:r1:bull' }]);
    expect(await store.get('pipeline:node:r1:bull')).toEqual({ v: 1, status: 'exploded' });
    await store.set('pipeline:run:r1', 'garbage');
    expect(await runner.resume(pipeline, { runId: 'r1' })).toMatchObject({ code: 'corrupt_record' });
    expect(await runner.snapshot(pipeline, 'r1')).toBeUndefined();
  });

  it('refuses an unknown run, another definition, a run that exists, and a run already driven', async () => {
    const { clock, runner } = setUp(() => ({}));
    expect(await runner.resume(pipeline, { runId: 'nope' })).toMatchObject({ code: 'unknown_run' });
    const done = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(await runner.start(pipeline, { runId: 'r1' })).toMatchObject({ code: 'run_exists' });
    const other = definePipeline({ name: 'quant', nodes: [{ id: 'x', kind: 'task', agent: 'y' }] });
    expect(await runner.resume(other, { runId: 'r1' })).toMatchObject({ code: 'definition_mismatch' });
    expect(await runner.resume(pipeline, { runId: 'r1' })).toEqual(done); // finished: resolves at once
    const running = runner.start(pipeline, { runId: 'r2' });
    expect(await runner.resume(pipeline, { runId: 'r2' })).toMatchObject({ code: 'already_running' });
    await drive(clock, running);
  });

  it('refuses more runs than maxRuns, and anything after close', async () => {
    const { clock, runner } = setUp(() => after(createManualClock(), 1, null), { maxRuns: 1 });
    const first = runner.start(pipeline, { runId: 'r1' });
    expect(await runner.start(pipeline, { runId: 'r2' })).toMatchObject({ code: 'too_many_runs' });
    expect(runner.active()).toEqual(['r1']);
    await runner.close();
    expect(await first).toMatchObject({ code: 'closed' });
    expect(await runner.start(pipeline, { runId: 'r3' })).toMatchObject({ code: 'closed' });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('reports a store that fails at the start', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const broken: Store = {
      ...store,
      compareAndSet: () => Promise.reject(new Error('down')),
      getEntry: () => Promise.reject(new Error('down')),
    };
    const { runner } = setUp(() => ({}), { clock, store: broken });
    expect(await runner.start(pipeline, { runId: 'r1' })).toMatchObject({ code: 'store_failed' });
    expect(await runner.resume(pipeline, { runId: 'r1' })).toMatchObject({ code: 'store_failed' });
  });
});
