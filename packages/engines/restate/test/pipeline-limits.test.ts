// Per-attempt timeouts and spawn limits of a pipeline workflow on a real server, each compared with
// what @parley/pipeline's Store runner stores for the same pipeline and work.
import { createManualClock, createMemoryStore } from '@parley/core';
import { createTopology, type Topology } from '@parley/envelope';
import {
  createPipelineRunner,
  definePipeline,
  type NodeContext,
  type NodeRecord,
  type PipelineDefinition,
  type PipelineRunnerOptions,
} from '@parley/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipelineWorkflow, type PipelineRunResult } from '../src/index.js';
import { call, outputOf, send, serveOnRestate } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, waitFor } from './server.js';

/** Work hanging until its signal aborts; `letGo` ends the ones left (attempts of invocations a restart cut off). */
const hanging = new Set<() => void>();
function hang(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      hanging.delete(done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    hanging.add(done);
    signal.addEventListener('abort', done, { once: true });
  });
}
const letGo = (): void => {
  for (const done of hanging) done();
};

/** Attempt 1 of `slow` is let go by the test; attempt 2 answers only after attempt 1's late result came back. */
let releaseFirst: (() => void) | undefined;
let firstReturned: Promise<void> = new Promise(() => {});
let secondStarted = false;
const sawAbort: boolean[] = [];
async function work(context: NodeContext): Promise<unknown> {
  if (context.node.agent === 'hanger') {
    await hang(context.signal); // gives up when the attempt times out: a result after it settled
    return 'too late';
  }
  if (context.node.agent === 'slow' && context.attempt === 1) {
    let returned = (): void => {};
    firstReturned = new Promise((resolve) => (returned = resolve));
    await new Promise<void>((resolve) => (releaseFirst = resolve));
    sawAbort.push(context.signal.aborted);
    setImmediate(returned);
    return 'late';
  }
  if (context.node.agent === 'slow') {
    secondStarted = true;
    await firstReturned;
    return 'second';
  }
  return { spawnId: context.spawnId ?? null };
}

/** A pipeline of one task node bounded by `timeoutMs`, retried `retries` times on a timeout, then aborting. */
const timing = (name: string, agent: string, timeoutMs: number, retries: number): PipelineDefinition =>
  definePipeline({
    name,
    nodes: [
      {
        id: agent === 'slow' ? 'slow' : 'hang',
        kind: 'task',
        agent,
        timeoutMs,
        onFailure: { timeout: { retries, after: 'abort' } },
      },
    ],
  });
const timedOut = timing('timed-out', 'hanger', 400, 0);
const retried = timing('retried', 'slow', 400, 1);
const durable = timing('durable', 'hanger', 4_000, 0);
const spawning = definePipeline({
  name: 'spawning',
  owner: 'lead',
  nodes: [
    { id: 'scout', kind: 'task', agent: 'scout' },
    { id: 'sum', kind: 'task', agent: 'lead', action: 'self', dependsOn: ['scout'] },
  ],
});

/** The ceo at depth 0 and the lead spawned under it: the lead's spawns are at depth 2. */
function tree(maxSpawnDepth: number): Topology {
  const topology = createTopology({ maxSpawnDepth });
  topology.register({ id: 'ceo' });
  topology.spawn({ parent: 'ceo', id: 'lead' });
  return topology;
}
const deep = tree(2);
const shallow = tree(1);
/** Room for the lead and one run, taken by a blocker the test finishes. */
const crowded = createTopology({ maxSpawnDepth: 2, maxConcurrent: 2 });
crowded.register({ id: 'ceo' });
crowded.spawn({ parent: 'ceo', id: 'lead' });
crowded.spawn({ parent: 'lead', id: 'blocker' });

let server: RestateServer;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([
    definePipelineWorkflow({ name: 'timedOut', pipeline: timedOut, work }),
    definePipelineWorkflow({ name: 'retried', pipeline: retried, work }),
    definePipelineWorkflow({ name: 'durable', pipeline: durable, work }),
    definePipelineWorkflow({ name: 'deep', pipeline: spawning, work, topology: deep }),
    definePipelineWorkflow({ name: 'shallow', pipeline: spawning, work, topology: shallow }),
    definePipelineWorkflow({ name: 'crowded', pipeline: spawning, work, topology: crowded }),
  ]));
});
afterAll(async () => {
  letGo();
  await stop?.();
});

const run = async (workflow: string, id: string): Promise<PipelineRunResult> =>
  (await outputOf(
    server.ingressUrl,
    await send(server.ingressUrl, `${workflow}/${id}/run`, null),
  )) as PipelineRunResult;
const nodes = (workflow: string, id: string) =>
  call<Record<string, NodeRecord>>(server.ingressUrl, `${workflow}/${id}/nodes`);

/** The entries of an invocation's journal (`<type>` or `<type> <name>`), read with the admin SQL API. */
async function journal(invocation: string): Promise<string[]> {
  const query = `SELECT entry_type, name FROM sys_journal WHERE id = '${invocation}' ORDER BY index`;
  const answer = await http('POST', `${server.adminUrl}/query`, { query }, { accept: 'application/json' });
  if (answer.status !== 200) throw new Error(`the journal query answered ${answer.status}: ${answer.text}`);
  const { rows } = JSON.parse(answer.text) as { rows: { entry_type: string; name?: string }[] };
  return rows.map((row) => (row.name ? `${row.entry_type} ${row.name}` : row.entry_type));
}

/** What a record says about how a node ended, without the times and the Store runner's lease fields. */
function ending(record: NodeRecord | undefined): Partial<NodeRecord> {
  const { status, code, reason, attempts, spawns, failures, abort, output } = record ?? ({} as NodeRecord);
  return { status, code, reason, attempts, spawns, failures, abort, output };
}

/** The same pipeline and work on @parley/pipeline's Store runner (memory store, manual clock). */
async function onStore(
  pipeline: PipelineDefinition,
  options: Partial<PipelineRunnerOptions> = {},
): Promise<{ status: string; nodes: Record<string, Partial<NodeRecord>> }> {
  const clock = createManualClock({ now: 0 });
  const runner = createPipelineRunner({ store: createMemoryStore({ clock }), clock, work, ...options });
  const result = runner.start(pipeline, { runId: 'store' });
  let settled = false;
  void result.finally(() => (settled = true));
  const flush = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  for (let i = 0; i < 1_000 && !settled; i++) {
    await flush();
    if (secondStarted) releaseFirst?.(); // attempt 1 answers once attempt 2 runs, as on the server
    await flush();
    if (!settled) clock.runNext();
  }
  const answer = await result;
  await runner.close();
  if (!answer.ok) throw new Error(`the Store runner refused: ${answer.code}`);
  const out: Record<string, Partial<NodeRecord>> = {};
  for (const [id, record] of Object.entries(answer.nodes)) out[id] = ending(record);
  return { status: answer.status, nodes: out };
}

describe('per-attempt timeouts', () => {
  it('ends an attempt that outlives its timeout as the Store runner does: failed, timeout, run aborted', async () => {
    const result = await run('timedOut', 'hang-1');
    expect(result.status).toBe('failed');
    expect(ending(result.nodes.hang)).toMatchObject({
      status: 'failed',
      code: 'timeout',
      failures: { timeout: 1 },
    });
    expect({ status: result.status, nodes: { hang: ending(result.nodes.hang) } }).toEqual(
      await onStore(timedOut),
    );
  });

  it('never applies the late result of a timed-out attempt; the retry’s result is the output', async () => {
    const started = send(server.ingressUrl, 'retried/slow-1/run', null);
    await waitFor('slow to time out once and start attempt 2', 20_000, async () => {
      const record = (await nodes('retried', 'slow-1')).slow;
      return record?.failures.timeout === 1 && record.attempts === 2;
    });
    releaseFirst?.();
    const result = (await outputOf(server.ingressUrl, await started)) as PipelineRunResult;
    expect(sawAbort).toEqual([true]); // attempt 1's signal was aborted when its time was up
    expect(ending(result.nodes.slow)).toMatchObject({ status: 'done', output: 'second', attempts: 2 });
    secondStarted = false;
    const store = await onStore(retried);
    expect(sawAbort).toEqual([true, true]);
    expect({ status: result.status, nodes: { slow: ending(result.nodes.slow) } }).toEqual(store);
  });

  it('keeps the attempt’s durable timer across a server restart', async () => {
    const started = await send(server.ingressUrl, 'durable/restart-1/run', null);
    await waitFor('the attempt’s timer to be journaled', 20_000, async () => {
      return (await journal(started)).includes('Command: Sleep');
    });
    expect((await nodes('durable', 'restart-1')).hang).toMatchObject({ status: 'running', attempts: 1 });
    const before = await journal(started);
    expect(before.at(-1)).toBe('Command: Sleep'); // the attempt's durable timer, after the journaled attempt
    await server.restart();
    const result = (await outputOf(server.ingressUrl, started)) as PipelineRunResult;
    const after = await journal(started);
    expect(after.slice(0, before.length)).toEqual(before); // replayed, not begun again
    expect(after.filter((entry) => entry === 'Command: Sleep')).toHaveLength(1); // the same timer fired
    expect(ending(result.nodes.hang)).toMatchObject({
      status: 'failed',
      code: 'timeout',
      reason: 'no result within 4000 ms',
      attempts: 1,
    });
    letGo();
  });
});

describe('spawn limits through the topology', () => {
  it('spawns each attempt of a spawn node under the owner, never a self node, and finishes it', async () => {
    const spawned: string[] = [];
    deep.on('spawned', ({ agent }) => spawned.push(`${agent.id}@${agent.depth}<${agent.parent}`));
    const result = await run('deep', 'd1');
    expect(result.status).toBe('succeeded');
    expect(spawned).toEqual(['d1/scout-1@2<lead']);
    expect(result.nodes.scout).toMatchObject({
      spawns: 1,
      spawnId: 'd1/scout-1',
      output: { spawnId: 'd1/scout-1' },
    });
    expect(result.nodes.sum).toMatchObject({ spawns: 0, output: { spawnId: null } });
    expect(deep.running()).toBe(1); // only the lead
  });

  it('refuses a spawn beyond the depth limit with the Store runner’s code, running no work', async () => {
    const result = await run('shallow', 's1');
    expect(ending(result.nodes.scout)).toMatchObject({
      status: 'failed',
      code: 'refused',
      reason: 'depth_exceeded: A run at depth 2 exceeds maxSpawnDepth 1',
    });
    const store = await onStore(spawning, { topology: tree(1) });
    expect({
      status: result.status,
      nodes: { scout: ending(result.nodes.scout), sum: ending(result.nodes.sum) },
    }).toEqual(store);
  });

  it('waits in a journaled step for a free slot under the concurrency limit, then spawns', async () => {
    const started = await send(server.ingressUrl, 'crowded/c1/run', null);
    await waitFor('the spawn of scout to wait for a slot', 20_000, async () => crowded.waitingSpawns() === 1);
    expect((await nodes('crowded', 'c1')).scout).toMatchObject({ status: 'running', attempts: 1, spawns: 1 });
    crowded.finish('blocker');
    const result = (await outputOf(server.ingressUrl, started)) as PipelineRunResult;
    expect(result.status).toBe('succeeded');
    expect(result.nodes.scout).toMatchObject({ status: 'done', output: { spawnId: 'c1/scout-1' } });
    expect(crowded.running()).toBe(1); // the slot was given back
  });
});
