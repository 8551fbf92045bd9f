import { createManualClock, createMemoryStore } from '@parley/core';
import { createTopology } from '@parley/envelope';
import { describe, expect, it } from 'vitest';
import { definePipeline, parsePipeline } from '../src/index.js';
import { after, drive, flush, MIN, setUp } from './helpers.js';

const approval = definePipeline({
  name: 'approve',
  nodes: [
    { id: 'plan', kind: 'task', agent: 'quant_strategist' },
    { id: 'approve', kind: 'approval', dependsOn: ['plan'], timeoutMs: 60 * MIN },
  ],
});

describe('approvals across a restart', () => {
  it('keeps waiting after a restart without asking again, and takes the decision', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const first = setUp(() => ({}), { clock, store });
    const run = first.runner.start(approval, { runId: 'r1' });
    await flush();
    await first.runner.close();
    await run;
    const second = setUp(() => ({}), { clock, store });
    const resumed = second.runner.resume(approval, { runId: 'r1' });
    await flush();
    expect(second.events.approval).toEqual([]); // the prompt was delivered before the restart
    expect(await second.runner.decide(approval, 'r1', 'approve', { approved: true })).toEqual({ ok: true });
    const result = await drive(clock, resumed);
    expect(result.ok && result.status).toBe('succeeded');
    expect(second.calls).toEqual([]);
  });

  it('expires an approval whose deadline passed while the process was down', async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const first = setUp(() => ({}), { clock, store });
    const run = first.runner.start(approval, { runId: 'r1' });
    await flush();
    await first.runner.close();
    await run;
    clock.advance(2 * 60 * MIN);
    const second = setUp(() => ({}), { clock, store });
    const result = await drive(clock, second.runner.resume(approval, { runId: 'r1' }));
    expect(result.ok && result.nodes['approve']).toMatchObject({ status: 'failed', code: 'expired' });
  });

  it('refuses a decision on a corrupt record, and snapshots leave corrupt nodes out', async () => {
    const { clock, store, runner } = setUp(() => ({}));
    const run = runner.start(approval, { runId: 'r1' });
    await flush();
    await runner.close();
    await run;
    await store.set('pipeline:node:r1:approve', [1, 2]);
    expect(await runner.decide(approval, 'r1', 'approve', { approved: true })).toMatchObject({
      code: 'corrupt_record',
    });
    expect(Object.keys((await runner.snapshot(approval, 'r1')) ?? {})).toEqual(['plan']);
    expect(await runner.snapshot(approval, 'nope')).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('edges of the runner', () => {
  it('stops a review cleanly when the runner closes mid-review', async () => {
    const pipeline = definePipeline({
      name: 'r',
      nodes: [
        { id: 'draft', kind: 'task', agent: 'w' },
        { id: 'review', kind: 'review', agent: 'e', reviews: 'draft', dependsOn: ['draft'] },
      ],
    });
    const { clock, runner } = setUp((ctx) =>
      ctx.node.kind === 'review' ? after(clock, MIN, { verdict: 'pass' }, ctx.signal) : 'text',
    );
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    await runner.close();
    expect(await run).toMatchObject({ ok: false, code: 'closed' });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('fails a spawn whose id the tree cannot take', async () => {
    const topology = createTopology({ maxSpawnDepth: 2 });
    topology.register({ id: 'lead' });
    const pipeline = definePipeline({
      name: 'p',
      owner: 'lead',
      nodes: [{ id: 'a', kind: 'task', agent: 'x' }],
    });
    const { clock, runner, events } = setUp(() => ({}), { topology, spawnId: () => 'x'.repeat(1000) });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.nodes['a']).toMatchObject({ status: 'failed', code: 'refused' });
    expect(events.failure[0]?.kind).toBe('refused');
  });

  it('spawns under no parent when the pipeline has no owner and the run none', async () => {
    const topology = createTopology({ maxSpawnDepth: 2 });
    const pipeline = definePipeline({ name: 'p', nodes: [{ id: 'a', kind: 'task', agent: 'x' }] });
    const { clock, runner } = setUp(() => ({}), { topology });
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    expect(result.ok && result.nodes['a']?.reason).toMatch(/^unknown_agent/);
  });
});

describe('parsePipeline defaults', () => {
  it('reads a minimal pipeline: no owner, trigger, action, output or channel', () => {
    const result = parsePipeline({
      name: 'mini',
      steps: [
        { id: 'a', agent: 'x' },
        { id: 'r', agent: 'y', depends_on: ['a'], on_revise: 'retry(a, max=1)' },
        { id: 'ok', type: 'hitl', depends_on: ['r'] },
      ],
    });
    if (!result.ok) throw new Error(result.issues.join());
    expect(result.value.owner).toBeUndefined();
    expect(result.value.trigger).toBeUndefined();
    expect(result.value.nodes).toMatchObject([
      { id: 'a', kind: 'task', action: 'spawn' },
      { id: 'r', kind: 'review', reviews: 'a', maxRevisions: 1 },
      { id: 'ok', kind: 'approval' },
    ]);
    expect('escalateTo' in (result.value.nodes[1] ?? {})).toBe(false);
  });

  it('names a review with on_block only after its first dependency, or nothing', () => {
    const result = parsePipeline({ name: 'x', steps: [{ id: 'r', agent: 'y', on_block: 'escalate(ceo)' }] });
    expect(result).toEqual({ ok: false, issues: ['steps[0].reviews: "" is not upstream'] });
  });
});

describe('more edges', () => {
  it('expires at once a waiting record that lost its deadline (fail closed)', async () => {
    const { clock, store, runner } = setUp(() => ({}));
    const run = runner.start(approval, { runId: 'r1' });
    await flush();
    await runner.close();
    await run;
    const entry = (await store.get('pipeline:node:r1:approve')) as { data: Record<string, unknown> };
    const { deadlineAt: _, ...rest } = entry.data;
    await store.set('pipeline:node:r1:approve', { ...entry, data: rest } as never);
    const again = setUp(() => ({}), { clock, store });
    const result = await drive(clock, again.runner.resume(approval, { runId: 'r1' }));
    expect(result.ok && result.nodes['approve']).toMatchObject({ status: 'failed', code: 'expired' });
  });

  it('stops a review cleanly when the runner closes while a revision runs', async () => {
    const pipeline = definePipeline({
      name: 'r',
      nodes: [
        { id: 'draft', kind: 'task', agent: 'w' },
        { id: 'review', kind: 'review', agent: 'e', reviews: 'draft', dependsOn: ['draft'] },
      ],
    });
    const { clock, runner } = setUp((ctx) => {
      if (ctx.node.kind === 'review') return { verdict: 'revise', issues: [{ description: 'more' }] };
      return ctx.revision === undefined ? 'v1' : after(clock, MIN, 'v2', ctx.signal);
    });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    await runner.close();
    expect(await run).toMatchObject({ ok: false, code: 'closed' });
    const snapshot = await runner.snapshot(pipeline, 'r1');
    expect(snapshot?.['draft']?.status).toBe('running'); // left for a resume to take over
  });

  it('ignores a late failure of an attempt that already timed out, and names a root-level schema issue', async () => {
    const { z } = await import('zod');
    const { defineArtifacts } = await import('@parley/envelope');
    const artifacts = defineArtifacts({ 'N.json': z.number() });
    const pipeline = definePipeline({
      name: 'p',
      nodes: [{ id: 'a', kind: 'task', agent: 'x', output: 'N.json', timeoutMs: MIN }],
    });
    const { clock, runner, events } = setUp(
      (ctx) =>
        ctx.attempt === 1
          ? after(clock, 2 * MIN, null).then(() => Promise.reject(new Error('late')))
          : 'seven',
      { artifacts, clock: createManualClock() },
    );
    const result = await drive(clock, runner.start(pipeline, { runId: 'r1' }));
    clock.advance(2 * MIN);
    await flush();
    expect(events.ignored.map((e) => e.code)).toContain('late_result');
    expect(result.ok && result.nodes['a']?.reason).toMatch(/^N\.json: \(root\) /);
  });
});
