// A review round's pure rule: which nodes a revise request re-runs, and in which order.
import { ancestors } from './define.js';
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
