import { describe, expect, it } from 'vitest';
import { definePipeline } from '../src/index.js';
import { drive, flush, MIN, setUp } from './helpers.js';

const DAY = 24 * 60 * MIN;

// Issue 31, reproduction 2: an approval that may wait longer than the records' ttlMs (7 days).
const pipeline = definePipeline({
  name: 'long-wait',
  nodes: [
    { id: 'plan', kind: 'task', agent: 'quant_strategist' },
    { id: 'approve', kind: 'approval', channel: '#approvals', dependsOn: ['plan'], timeoutMs: 10 * DAY },
    { id: 'execute', kind: 'task', agent: 'executor', dependsOn: ['approve'] },
  ],
});

describe('the lifetime of a run', () => {
  it('keeps a run as long as its longest wait: a decision on day 8 of a 10-day approval counts', async () => {
    const { clock, runner, store, calls } = setUp(() => ({}));
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    clock.advance(8 * DAY);
    expect(await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chairman' })).toEqual({
      ok: true,
    });
    const result = await drive(clock, run);
    expect(result.ok && result.status).toBe('succeeded');
    expect(calls).toEqual(['plan#1', 'execute#1']);
    expect(await store.get('pipeline:run:r1')).toMatchObject({ data: { status: 'succeeded' } });
  });

  it('lets a restarted runner resume the waiting run on day 9', async () => {
    const first = setUp(() => ({}));
    const run = first.runner.start(pipeline, { runId: 'r1' });
    await flush();
    await first.runner.close();
    await run;
    first.clock.advance(9 * DAY);
    const second = setUp(() => ({}), { clock: first.clock, store: first.store });
    const resumed = second.runner.resume(pipeline, { runId: 'r1' });
    await flush();
    expect(await second.runner.decide(pipeline, 'r1', 'approve', { approved: true })).toEqual({ ok: true });
    const result = await drive(first.clock, resumed);
    expect(result.ok && result.status).toBe('succeeded');
  });

  it('keeps a finished run and its nodes ttlMs plus the longest wait past their last write', async () => {
    const { clock, runner, store } = setUp(() => ({}), { ttlMs: DAY });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    clock.advance(3 * DAY);
    await runner.decide(pipeline, 'r1', 'approve', { approved: true });
    await drive(clock, run);
    clock.advance(11 * DAY + MIN - 1); // ttlMs, the approval's wait and the lease grace
    expect(await store.get('pipeline:run:r1')).toMatchObject({ data: { status: 'succeeded' } });
    expect(await store.get('pipeline:node:r1:execute')).toMatchObject({ data: { status: 'done' } });
    clock.advance(1);
    expect(await store.get('pipeline:run:r1')).toBeUndefined();
    expect(await store.get('pipeline:node:r1:execute')).toBeUndefined();
  });

  it("keeps a finished header as long as its nodes: a reused run id never reads the former run's nodes", async () => {
    const { clock, runner, calls } = setUp(() => ({}), { ttlMs: DAY });
    const first = runner.start(pipeline, { runId: 'r1' });
    await flush();
    await runner.decide(pipeline, 'r1', 'approve', { approved: true });
    expect(await drive(clock, first)).toMatchObject({ ok: true, status: 'succeeded' });
    // past the header's ttlMs, within the nodes' lifetime (ttlMs plus the 10-day wait and the lease grace)
    for (const step of [DAY, 5 * DAY, 5 * DAY + MIN - 1]) {
      clock.advance(step); // 1 day, 6 days, then 11 days and the lease grace less 1 ms after the run finished
      expect(await runner.start(pipeline, { runId: 'r1' })).toMatchObject({ ok: false, code: 'run_exists' });
    }
    clock.advance(1); // every record of the first run has expired: the id starts a new run from its first node
    const second = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(calls).toEqual(['plan#1', 'execute#1', 'plan#1']);
    await runner.decide(pipeline, 'r1', 'approve', { approved: true });
    expect(await drive(clock, second)).toMatchObject({ ok: true, status: 'succeeded' });
    expect(calls).toEqual(['plan#1', 'execute#1', 'plan#1', 'execute#1']);
  });

  it("gives a node whose runner stopped mid-attempt the run's lifetime from its start, in the same write", async () => {
    const { clock, runner, store } = setUp(() => new Promise(() => {}), { ttlMs: DAY }); // plan never answers
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    expect(await store.get('pipeline:node:r1:plan')).toMatchObject({ data: { status: 'running' } });
    await runner.close(); // the process stops; nobody resumes the run
    expect(await run).toMatchObject({ ok: false, code: 'closed' });
    clock.advance(11 * DAY + MIN - 1); // ttlMs, the approval's wait and the lease grace, from the start
    expect(await store.get('pipeline:node:r1:plan')).toMatchObject({ data: { status: 'running' } });
    clock.advance(1);
    expect(await store.get('pipeline:node:r1:plan')).toBeUndefined();
  });
});
