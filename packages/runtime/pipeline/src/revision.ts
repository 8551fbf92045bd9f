// A review round's pure rules: what a reviewer's revise request says, which nodes it re-runs, and in
// which order.
import type { JsonValue } from '@parley/core';
import { z } from 'zod';
import { ancestors } from './define.js';
import { Issue, type ReviseRequest } from './records.js';
import type { PipelineDefinition } from './types.js';

/**
 * Lists the nodes a review node's revise request re-runs, in order, purely: the upstream node
 * `target` names (by id or agent, approvals excluded) when it is not the reviewed node, then the
 * reviewed node. Empty when `reviewId` is not a review node.
 *
 * The Store runner re-runs exactly these on every round, and `@parley/restate` hosts the same rounds
 * in a workflow.
 *
 * @example
 * ```ts
 * import { definePipeline, revisionOrder } from '@parley/pipeline';
 *
 * const pipeline = definePipeline({
 *   name: 'brief',
 *   nodes: [
 *     { id: 'research', kind: 'task', agent: 'analyst' },
 *     { id: 'draft', kind: 'task', agent: 'writer', dependsOn: ['research'] },
 *     { id: 'review', kind: 'review', agent: 'editor', reviews: 'draft', dependsOn: ['draft'] },
 *   ],
 * });
 * console.log(revisionOrder(pipeline, 'review', 'analyst')); // [ 'research', 'draft' ]
 * console.log(revisionOrder(pipeline, 'review', undefined)); // [ 'draft' ]
 * ```
 */
export function revisionOrder(
  pipeline: PipelineDefinition,
  reviewId: string,
  target: string | undefined,
): readonly string[] {
  const node = pipeline.nodes.find((n) => n.id === reviewId);
  if (node?.kind !== 'review') return [];
  const upstream = ancestors(pipeline.nodes, node.id);
  const named = pipeline.nodes.find(
    (n) => n.kind !== 'approval' && upstream.has(n.id) && (n.id === target || n.agent === target),
  );
  return named !== undefined && named.id !== node.reviews ? [named.id, node.reviews] : [node.reviews];
}

// As loose as the review gate's own check: fields it does not know are dropped, not refused.
const ReviseVerdict = z.object({
  verdict: z.literal('revise'),
  issues: z.array(z.object(Issue.shape)).min(1),
  summary: z.string().optional(),
  revise_target: z.string().optional(),
});

/**
 * Reads the revise request in a reviewer's output, purely: round `round` for the review's attempt
 * `attempt`, with its issues, summary and `revise_target`; `undefined` when the output is not a
 * well-formed `revise`. The Store runner stores it before anything re-runs; `@parley/restate` hosts
 * the same rounds.
 *
 * @example
 * ```ts
 * import { toReviseRequest } from '@parley/pipeline';
 *
 * const output = { verdict: 'revise', revise_target: 'analyst', issues: [{ description: 'no sources' }] };
 * console.log(toReviseRequest(output, 1, 2)?.target); // analyst
 * console.log(toReviseRequest({ verdict: 'pass' }, 1, 2)); // undefined
 * ```
 */
export function toReviseRequest(
  output: JsonValue,
  round: number,
  attempt: number,
): ReviseRequest | undefined {
  const parsed = ReviseVerdict.safeParse(output);
  if (!parsed.success) return undefined;
  const { issues, summary, revise_target: target } = parsed.data;
  return {
    round,
    issues,
    attempt,
    ...(summary === undefined ? {} : { summary }),
    ...(target === undefined ? {} : { target }),
  };
}
