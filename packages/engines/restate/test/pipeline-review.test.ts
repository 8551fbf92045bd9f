// Review rounds of a @parley/pipeline definition on a real Restate server: the reviewer's answer is
// judged by @parley/conflict's judgeReviewVerdict, the re-runs follow @parley/pipeline's
// toReviseRequest and revisionOrder, each re-run a journaled attempt.
import { definePipeline, type NodeContext } from '@parley/pipeline';
import { describe, expect, it } from 'vitest';
import { definePipelineWorkflow, type PipelineRunResult } from '../src/index.js';
import { call, onRestate } from './endpoint.js';

const calls: string[] = [];
/** Each run's input scripts the reviewer: its answer on attempt n is `answers[n - 1]`. */
function work(context: NodeContext): unknown {
  const revision = context.revision?.round ?? 0;
  calls.push(
    `${context.runId}/${context.node.id}#${context.attempt}${revision === 0 ? '' : ` r${revision}`}`,
  );
  if (context.node.kind === 'review') {
    const answers = (context.input as { answers: unknown[] }).answers;
    const answer = answers[context.attempt - 1];
    if (answer === 'fail') throw new Error('reviewer down');
    return answer;
  }
  if (context.node.agent === 'fragile' && revision > 0) throw new Error('cannot revise');
  const issues = context.revision?.issues.map((i) => i.description) ?? [];
  return { by: context.node.agent, revision, issues, summary: context.revision?.summary ?? null };
}

const pipeline = (writer: string, maxRevisions?: number) =>
  definePipeline({
    name: 'reviewed',
    nodes: [
      { id: 'research', kind: 'task', agent: 'analyst' },
      { id: 'draft', kind: 'task', agent: writer, dependsOn: ['research'] },
      {
        id: 'review',
        kind: 'review',
        agent: 'editor',
        reviews: 'draft',
        dependsOn: ['draft'],
        ...(maxRevisions === undefined ? {} : { maxRevisions }),
        escalateTo: 'ceo',
        onFailure: { error: { retries: 0, after: 'abort' } },
      },
    ],
  });
const reviewed = definePipelineWorkflow({ name: 'reviewed', work, pipeline: pipeline('writer', 2) });
const fragile = definePipelineWorkflow({ name: 'fragileReview', work, pipeline: pipeline('fragile') });
const on = onRestate([reviewed, fragile]);

const run = (workflow: string, id: string, answers: unknown[]): Promise<PipelineRunResult> =>
  call(on.server.ingressUrl, `${workflow}/${id}/run`, { answers });
const revise = (target: string, description: string) => ({
  verdict: 'revise',
  revise_target: target,
  summary: `${target}: ${description}`,
  issues: [{ severity: 'major', description }],
});

describe('review rounds in a pipeline workflow', () => {
  it('re-runs the node the reviewer names, then the reviewed node, with the issues, and passes on the next round', async () => {
    const result = await run('reviewed', 'r1', [revise('analyst', 'no sources'), { verdict: 'pass' }]);
    expect(result.status).toBe('succeeded');
    expect(result.nodes.research).toMatchObject({
      status: 'done',
      revision: 1,
      output: { revision: 1, issues: ['no sources'], summary: 'analyst: no sources' },
    });
    expect(result.nodes.draft).toMatchObject({ status: 'done', revision: 1, output: { revision: 1 } });
    expect(result.nodes.review).toMatchObject({ status: 'done', attempts: 2, output: { verdict: 'pass' } });
    expect(calls.filter((c) => c.startsWith('r1/'))).toEqual([
      'r1/research#1',
      'r1/draft#1',
      'r1/review#1',
      'r1/research#2 r1',
      'r1/draft#2 r1',
      'r1/review#2',
    ]);
  });

  it('escalates when the revision rounds are used up, re-running only the reviewed node without a target', async () => {
    const again = { verdict: 'revise', issues: [{ description: 'still vague' }] };
    const result = await run('reviewed', 'r2', [again, again, again]);
    expect(result.nodes.review).toMatchObject({
      status: 'escalated',
      code: 'revise_limit',
      escalateTo: 'ceo',
      attempts: 3,
    });
    expect(result.nodes.draft).toMatchObject({ revision: 2 });
    expect(result.nodes.research).toMatchObject({ revision: 0, attempts: 1 });
  });

  it('escalates a block and a malformed verdict as the review gate does', async () => {
    const blocked = await run('reviewed', 'r3', [{ verdict: 'block', issues: [{ description: 'unsafe' }] }]);
    expect(blocked.nodes.review).toMatchObject({ status: 'escalated', code: 'blocked' });
    const bad = await run('reviewed', 'r4', [{ verdict: 'revise' }]); // a revise without issues
    expect(bad.nodes.review).toMatchObject({ status: 'escalated', code: 'invalid_verdict' });
  });

  it('applies the review node’s failure policy when the reviewer fails or a revision cannot run', async () => {
    const down = await run('reviewed', 'r5', ['fail']);
    expect(down.status).toBe('failed');
    expect(down.nodes.review).toMatchObject({ status: 'failed', reason: 'reviewer down' });
    const stuck = await run('fragileReview', 'r6', [revise('fragile', 'too long')]);
    expect(stuck.nodes.draft).toMatchObject({ status: 'done', revision: 0, output: { revision: 0 } });
    expect(stuck.nodes.review).toMatchObject({
      status: 'failed',
      reason: 'draft could not revise: cannot revise',
    });
  });
});
