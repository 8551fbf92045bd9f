// A @parley/pipeline definition run as a Restate workflow on a real server.
import { isParleyError } from '@parley/core';
import { definePipeline, type NodeContext, type NodeRecord } from '@parley/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecideResult, definePipelineWorkflow, type PipelineRunResult } from '../src/index.js';
import { call, send, serveOnRestate } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, waitFor } from './server.js';

const calls: string[] = [];
const flaky = new Set<string>();
function work(context: NodeContext): unknown {
  const key = `${context.runId}/${context.node.id}`;
  calls.push(`${key}#${context.attempt}`);
  if (context.node.agent === 'flaky' && !flaky.has(key)) {
    flaky.add(key);
    throw new Error('model API error');
  }
  if (context.node.agent === 'broken') throw new Error('always broken');
  if (context.node.agent === 'thrower') throw 'a bare string';
  if (context.node.agent === 'silent') return undefined;
  return { by: context.node.agent, saw: Object.keys(context.outputs).sort(), input: context.input ?? null };
}

const brief = definePipelineWorkflow({
  name: 'brief',
  work,
  pipeline: definePipeline({
    name: 'brief',
    nodes: [
      { id: 'research', kind: 'task', agent: 'researcher' },
      { id: 'draft', kind: 'task', agent: 'flaky', dependsOn: ['research'] },
      {
        id: 'extra',
        kind: 'task',
        agent: 'x',
        dependsOn: ['research'],
        condition: { node: 'research', field: 'by', op: '==', value: 'nobody' },
      },
      { id: 'approve', kind: 'approval', dependsOn: ['draft'], timeoutMs: 60_000 },
    ],
  }),
});
const quick = definePipelineWorkflow({
  name: 'quick',
  work,
  pipeline: definePipeline({ name: 'quick', nodes: [{ id: 'approve', kind: 'approval', timeoutMs: 300 }] }),
});
const fragile = definePipelineWorkflow({
  name: 'fragile',
  work,
  pipeline: definePipeline({
    name: 'fragile',
    nodes: [
      { id: 'a', kind: 'task', agent: 'broken', onFailure: { error: { retries: 0, after: 'skip' } } },
      { id: 'b', kind: 'task', agent: 'x', dependsOn: ['a'] },
      { id: 'd', kind: 'task', agent: 'silent' },
      { id: 'e', kind: 'task', agent: 'thrower', onFailure: { error: { retries: 0, after: 'escalate' } } },
      { id: 'c', kind: 'task', agent: 'broken' },
    ],
  }),
});

let server: RestateServer;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ server, stop } = await serveOnRestate([brief, quick, fragile]));
});
afterAll(async () => stop?.());

const nodes = (workflow: string, id: string) =>
  call<Record<string, NodeRecord>>(server.ingressUrl, `${workflow}/${id}/nodes`);
const decide = (workflow: string, id: string, input: unknown) =>
  call<DecideResult>(server.ingressUrl, `${workflow}/${id}/decide`, input);
async function outputOf(invocation: string): Promise<PipelineRunResult> {
  const answer = await http('GET', `${server.ingressUrl}/restate/invocation/${invocation}/attach`);
  if (answer.status !== 200) throw new Error(`attach answered ${answer.status}: ${answer.text}`);
  return JSON.parse(answer.text) as PipelineRunResult;
}
const waiting = (workflow: string, id: string, node: string) =>
  waitFor(
    `${workflow}/${id} to wait on ${node}`,
    20_000,
    async () => (await nodes(workflow, id))[node]?.status === 'waiting',
  );

describe('definePipelineWorkflow', () => {
  it('runs each node as a durable step, skips what its condition rules out, and waits for the approval', async () => {
    const run = await send(server.ingressUrl, 'brief/run-1/run', { topic: 'rates' });
    await waiting('brief', 'run-1', 'approve');
    expect(
      await decide('brief', 'run-1', { node: 'approve', decision: { approved: true, by: 'ceo' } }),
    ).toEqual({ ok: true });
    const result = await outputOf(run);
    expect(result.status).toBe('succeeded');
    expect(result.nodes.extra).toMatchObject({ status: 'skipped' });
    expect(result.nodes.draft).toMatchObject({
      status: 'done',
      attempts: 2,
      output: { saw: ['research'], input: { topic: 'rates' } },
    });
    expect(result.nodes.approve).toMatchObject({ status: 'done', output: { approved: true, by: 'ceo' } });
    expect(calls.filter((c) => c.startsWith('run-1/'))).toEqual([
      'run-1/research#1',
      'run-1/draft#1',
      'run-1/draft#2',
    ]);
  });

  it('refuses decisions that are not for a waiting approval', async () => {
    const run = await send(server.ingressUrl, 'brief/run-2/run', null);
    expect(await decide('brief', 'run-2', { node: 'research', decision: { approved: true } })).toMatchObject({
      code: 'unknown_node',
    });
    expect(await decide('brief', 'run-2', { node: 'approve', decision: { approved: 'yes' } })).toMatchObject({
      code: 'malformed',
    });
    expect(await decide('brief', 'run-2', { node: 'approve', decision: { approved: true } })).toMatchObject({
      code: 'not_waiting',
      message: 'approve is pending, not waiting for a decision',
    });
    await waiting('brief', 'run-2', 'approve');
    expect(
      await decide('brief', 'run-2', { node: 'approve', decision: { approved: false, reason: 'no' } }),
    ).toEqual({ ok: true });
    expect(await decide('brief', 'run-2', { node: 'approve', decision: { approved: true } })).toMatchObject({
      ok: false,
      code: 'not_waiting',
    });
    const result = await outputOf(run);
    expect(result.status).toBe('rejected');
    expect(result.nodes.approve).toMatchObject({ status: 'rejected', reason: 'no' });
  });

  it('expires an approval at its deadline by a durable timer and refuses a decision after it', async () => {
    const run = await send(server.ingressUrl, 'quick/run-3/run', null);
    const result = await outputOf(run);
    expect(result.status).toBe('failed');
    expect(result.nodes.approve).toMatchObject({ status: 'failed', code: 'expired' });
    expect(await decide('quick', 'run-3', { node: 'approve', decision: { approved: true } })).toMatchObject({
      code: 'not_waiting',
    });
  });

  it('applies the failure policy: skip what it says to skip, abort the run past the retries', async () => {
    const result = await outputOf(await send(server.ingressUrl, 'fragile/run-4/run', null));
    expect(result.nodes.a).toMatchObject({ status: 'skipped', code: 'error', attempts: 1 });
    expect(result.nodes.b).toMatchObject({ status: 'skipped' });
    expect(result.nodes.c).toMatchObject({ status: 'failed', code: 'error', attempts: 2, abort: true });
    expect(result.nodes.d).toMatchObject({ status: 'done', output: null });
    expect(result.nodes.e).toMatchObject({ status: 'escalated', code: 'error', reason: 'a bare string' });
    expect(result.status).toBe('failed');
  });

  it("refuses onUnknown: 'report' and an empty name (invalid_argument), and takes review nodes", () => {
    const pipeline = definePipeline({
      name: 'p',
      nodes: [
        { id: 'a', kind: 'task', agent: 'x' },
        { id: 'r', kind: 'review', agent: 'y', reviews: 'a', dependsOn: ['a'] },
      ],
    });
    const codeOf = (fn: () => unknown): string | undefined => {
      try {
        fn();
      } catch (error) {
        return isParleyError(error) ? error.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => definePipelineWorkflow({ name: 'p', pipeline, work }))).toBeUndefined();
    const once = definePipeline({
      name: 'o',
      nodes: [{ id: 'pay', kind: 'task', agent: 'x', onUnknown: 'report' }],
    });
    expect(codeOf(() => definePipelineWorkflow({ name: 'o', pipeline: once, work }))).toBe(
      'invalid_argument',
    );
    expect(
      codeOf(() =>
        definePipelineWorkflow({
          name: '',
          pipeline: definePipeline({ name: 'q', nodes: [{ id: 'a', kind: 'approval' }] }),
          work,
        }),
      ),
    ).toBe('invalid_argument');
  });
});
