import type { NodeRecord, NodeStatus, RunStatus } from './records.js';
import { isFinal } from './records.js';
import type { PipelineDefinition } from './types.js';

type PipelineNode = PipelineDefinition['nodes'][number];

/**
 * What a run should do next, computed from its definition and its nodes' records alone.
 *
 * @example
 * ```ts
 * import type { RunPlan } from '@parley/pipeline';
 *
 * const plan: RunPlan = { start: ['bull', 'bear'], skip: [], finished: false };
 * ```
 */
export interface RunPlan {
  /** Pending nodes whose dependencies are done and whose condition holds, in definition order. */
  readonly start: readonly string[];
  /** Pending nodes that can never run, with why. */
  readonly skip: readonly { readonly id: string; readonly reason: string }[];
  readonly finished: boolean;
  /** When finished: how the run ended. */
  readonly status?: RunStatus;
}

/**
 * The scheduler's one pure step: which pending nodes start now (every dependency `done`, the
 * condition true), which are skipped (a dependency ended otherwise, the condition is false, or a
 * node aborted the run), and whether the run is over and how.
 *
 * Use it to show what a stored run would do next, or in a host's own loop; the runner calls it on
 * every tick. It reads no clock and no store, so the same records always give the same plan.
 *
 * @example
 * ```ts
 * import { definePipeline, planRun } from '@parley/pipeline';
 *
 * const pipeline = definePipeline({
 *   name: 'p',
 *   nodes: [
 *     { id: 'a', kind: 'task', agent: 'x' },
 *     { id: 'b', kind: 'task', agent: 'y', dependsOn: ['a'] },
 *     { id: 'c', kind: 'task', agent: 'z', dependsOn: ['a'] },
 *   ],
 * });
 * const done = { v: 1, status: 'done', attempts: 1, spawns: 1, revision: 0, failures: {} } as const;
 * console.log(planRun(pipeline, { a: done }).start); // ['b', 'c']
 * ```
 */
export function planRun(
  definition: PipelineDefinition,
  records: Readonly<Record<string, NodeRecord | undefined>>,
): RunPlan {
  // Nodes come in definition order, so a dependency skipped in this same pass is seen after it.
  // Indexed loops: a definition's lists are frozen, and for-of over a frozen array allocates.
  const nodes = definition.nodes;
  const skipped = new Set<string>();
  const statusOf = (id: string): NodeStatus =>
    skipped.has(id) ? 'skipped' : (records[id]?.status ?? 'pending');
  let aborted: string | undefined;
  for (let i = 0; i < nodes.length; i++) {
    const id = (nodes[i] as PipelineNode).id;
    if (records[id]?.abort === true) aborted ??= id;
  }
  const start: string[] = [];
  const skip: { id: string; reason: string }[] = [];
  const skipWith = (id: string, reason: string): void => {
    skip.push({ id, reason });
    skipped.add(id);
  };
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as PipelineNode;
    if (statusOf(node.id) !== 'pending') continue;
    if (aborted !== undefined) {
      skipWith(node.id, `run aborted at ${aborted}`);
      continue;
    }
    let ready = true;
    let blocked: string | undefined;
    const deps = node.dependsOn;
    for (let d = 0; d < deps.length; d++) {
      const dep = deps[d] as string;
      const status = statusOf(dep);
      if (status === 'done') continue;
      ready = false;
      if (isFinal(status)) {
        blocked = dep;
        break;
      }
    }
    if (blocked !== undefined) {
      skipWith(node.id, `${blocked} ${statusOf(blocked)}`);
      continue;
    }
    if (!ready) continue;
    const condition = node.condition;
    if (condition !== undefined) {
      const output = records[condition.node]?.output;
      const actual =
        typeof output === 'object' && output !== null && !Array.isArray(output)
          ? (output as Readonly<Record<string, unknown>>)[condition.field]
          : undefined;
      const holds = (String(actual) === condition.value) === (condition.op === '==');
      if (!holds) {
        skipWith(
          node.id,
          `condition ${condition.node}.${condition.field} ${condition.op} "${condition.value}" is false (${String(actual)})`,
        );
        continue;
      }
    }
    start.push(node.id);
  }
  for (let i = 0; i < nodes.length; i++) {
    if (!isFinal(statusOf((nodes[i] as PipelineNode).id))) return { start, skip, finished: false };
  }
  const all = definition.nodes.map((node) => statusOf(node.id));
  const runStatus = all.includes('failed')
    ? 'failed'
    : all.includes('escalated')
      ? 'escalated'
      : all.includes('rejected')
        ? 'rejected'
        : 'succeeded';
  return { start, skip, finished: true, status: runStatus };
}
