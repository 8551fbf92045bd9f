import { createManualClock, createMemoryStore } from '@parley/core';
import { createPipelineRunner, definePipeline, type NodeContext } from '@parley/pipeline';
import { describe, expect, it } from 'vitest';
import { NOW, serve } from './helpers.js';

const MIN = 60_000;
const pipeline = definePipeline({
  name: 'quant',
  nodes: [
    { id: 'plan', kind: 'task', agent: 'strategist' },
    { id: 'check', kind: 'review', agent: 'risk', reviews: 'plan', dependsOn: ['plan'] },
    { id: 'approve', kind: 'approval', channel: '#desk', dependsOn: ['check'], timeoutMs: 60 * MIN },
    { id: 'execute', kind: 'task', agent: 'executor', dependsOn: ['approve'] },
  ],
});

/** Lets queued callbacks and immediates run (the runner drives nodes asynchronously). */
async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

function setUp(work: (ctx: NodeContext) => unknown = () => ({ verdict: 'pass', secret: 'api-key-123' })) {
  const clock = createManualClock({ now: NOW });
  const store = createMemoryStore({ clock });
  const runner = createPipelineRunner({ store, clock, work });
  return { clock, store, runner };
}

interface Detail {
  ok: true;
  run: { runId: string; status: string; name: string };
  nodes: {
    id: string;
    kind: string;
    status: string;
    dependsOn: string[];
    waitingUntil?: number;
    output: string;
  }[];
  mermaid?: string;
  approvalsWaiting: string[];
}

describe('/runs and /runs/<id>', () => {
  it('shows the live graph: each node’s state, the approval waiting and its deadline, and the Mermaid source', async () => {
    const { store, clock, runner } = setUp();
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    const { json, get } = await serve({ store, clock, pipelines: [pipeline] });
    expect(await json('/runs')).toMatchObject({ items: [{ runId: 'r1', name: 'quant', status: 'running' }] });
    const detail = await json<Detail>('/runs/r1');
    expect(detail.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['plan', 'task', 'done'],
      ['check', 'review', 'done'],
      ['approve', 'approval', 'waiting'],
      ['execute', 'task', 'pending'],
    ]);
    expect(detail.approvalsWaiting).toEqual(['approve']);
    expect(detail.nodes[2]?.waitingUntil).toBe(NOW + 60 * MIN);
    expect(detail.mermaid).toContain('class approve waiting');
    const html = (await get('/runs/r1')).text;
    expect(html).toContain('Approvals waiting: approve');
    expect(html).toContain('<tr class="waiting">');
    expect(html).toContain('flowchart TD');
    await runner.decide(pipeline, 'r1', 'approve', { approved: true, by: 'chair' });
    await flush();
    await run;
    const after = await json<Detail>('/runs/r1');
    expect(after.run.status).toBe('succeeded');
    expect(after.nodes.map((n) => n.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(after.approvalsWaiting).toEqual([]);
    expect(after.mermaid).toContain('class plan,check,approve,execute done');
    expect((await get('/runs')).text).toContain('<tr class="done">');
    await runner.close();
  });

  it('hides node outputs and run inputs unless reveal.outputs', async () => {
    const { store, clock, runner } = setUp();
    const run = runner.start(pipeline, { runId: 'r1', input: { token: 'input-secret' } });
    await flush();
    const hidden = await serve({ store, clock, pipelines: [pipeline] });
    const text = JSON.stringify(await hidden.json('/runs/r1')) + (await hidden.get('/runs')).text;
    expect(text).not.toMatch(/api-key-123|input-secret/);
    const shown = await serve({ store, clock, pipelines: [pipeline], reveal: { outputs: true } });
    expect(JSON.stringify(await shown.json('/runs/r1'))).toMatch(
      /api-key-123[\s\S]*input-secret|input-secret[\s\S]*api-key-123/,
    );
    await runner.close();
    await run;
  });

  it('shows the stored nodes without a graph when the definition was not given', async () => {
    const { store, clock, runner } = setUp();
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    const { json, get } = await serve({ store, clock });
    const detail = await json<Detail>('/runs/r1');
    expect(detail.mermaid).toBeUndefined();
    expect(detail.nodes.map((n) => [n.id, n.kind, n.status])).toEqual([
      ['approve', 'unknown', 'waiting'],
      ['check', 'unknown', 'done'],
      ['plan', 'unknown', 'done'],
    ]);
    expect((await get('/runs/r1')).text).toContain('was not given to the console');
    await runner.close();
    await run;
  });

  it('reports an unreadable run header and node records instead of showing them', async () => {
    const clock = createManualClock({ now: NOW });
    const store = createMemoryStore({ clock });
    const envelope = { lease: null, fence: 0, deadlineAt: null };
    await store.set('pipeline:run:bad', {
      kind: 'parley.pipeline.run',
      version: 1,
      data: { v: 9 },
      ...envelope,
    });
    await store.set('pipeline:run:ok', {
      kind: 'parley.pipeline.run',
      version: 1,
      data: { v: 1, name: 'quant', digest: pipeline.digest, status: 'running', createdAt: NOW },
      ...envelope,
    });
    await store.set('pipeline:node:ok:plan', {
      kind: 'parley.pipeline.node',
      version: 1,
      data: { v: 2 },
      ...envelope,
    });
    await store.set('pipeline:run:leased', {
      kind: 'parley.pipeline.run',
      version: 1,
      data: null,
      ...envelope,
    });
    await store.set('pipeline:node:ok:lease', {
      kind: 'parley.pipeline.node',
      version: 1,
      data: null,
      ...envelope,
    });
    const { json, get } = await serve({ store, clock, pipelines: [pipeline] });
    expect((await get('/runs/bad')).status).toBe(500);
    expect((await get('/runs/leased')).status).toBe(404);
    expect(await json('/runs')).toMatchObject({
      items: [{ runId: 'ok' }],
      refused: [{ key: 'pipeline:run:bad' }],
    });
    const detail = await json<Detail & { refused: { key: string }[] }>('/runs/ok');
    expect(detail.refused.map((r) => r.key)).toEqual(['pipeline:node:ok:plan']);
    expect(detail.nodes.map((n) => n.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
  });
});

describe('a run’s nodes in their other states', () => {
  it('shows a review’s revise round and issues, and the runner holding a running node', async () => {
    let reviews = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { store, clock, runner } = setUp((ctx) => {
      if (ctx.node.kind === 'review') {
        reviews += 1;
        return reviews === 1
          ? { verdict: 'revise', issues: [{ severity: 'major', description: 'No <b>stop loss</b>' }] }
          : { verdict: 'pass' };
      }
      return ctx.revision === undefined ? { plan: 1 } : held.then(() => ({ plan: 2 }));
    });
    const run = runner.start(pipeline, { runId: 'r1' });
    await flush();
    const { json, get } = await serve({ store, clock, pipelines: [pipeline] });
    const detail = await json<
      Detail & { nodes: { reviseRound?: number; issues?: string[]; owner?: string }[] }
    >('/runs/r1');
    expect(detail.nodes[0]).toMatchObject({ id: 'plan', status: 'running' });
    expect(detail.nodes[0]?.owner).toMatch(/^runner-/);
    expect(detail.nodes[1]).toMatchObject({ id: 'check', reviseRound: 1, issues: ['No <b>stop loss</b>'] });
    const html = (await get('/runs/r1')).text;
    expect(html).toContain('(revise round 1)');
    expect(html).toContain('No &lt;b&gt;stop loss&lt;/b&gt;');
    release();
    await runner.close();
    await run;
  });

  it('shows why a node failed and the run’s status', async () => {
    const failing = definePipeline({
      name: 'fails',
      nodes: [{ id: 'only', kind: 'task', agent: 'x', onFailure: { error: { retries: 0, after: 'abort' } } }],
    });
    const { store, clock, runner } = setUp(() => {
      throw new Error('the <broker> said no');
    });
    await runner.start(failing, { runId: 'r2' });
    const { json, get } = await serve({ store, clock, pipelines: [failing] });
    const detail = await json<Detail & { nodes: { code?: string; reason?: string }[] }>('/runs/r2');
    expect(detail.run.status).toBe('failed');
    expect(detail.nodes[0]).toMatchObject({ status: 'failed', code: 'error' });
    expect(detail.nodes[0]?.reason).toContain('the <broker> said no');
    expect((await get('/runs')).text).toContain('<tr class="failed">');
    expect((await get('/runs/r2')).text).toContain('the &lt;broker&gt; said no');
  });

  it('says so when no run is stored', async () => {
    const { store, clock } = setUp();
    const { get } = await serve({ store, clock });
    expect((await get('/runs')).text).toContain('No pipeline run is stored.');
  });
});
