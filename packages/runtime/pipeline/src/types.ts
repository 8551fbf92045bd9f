/**
 * The ways one attempt of a node can fail: it hung past `timeoutMs`, threw (a model API error),
 * returned an output its artifact schema refuses (`missing_fields`), or the spawn tree refused it.
 *
 * @example
 * ```ts
 * import { FAILURE_KINDS } from '@parley/pipeline';
 *
 * console.log(FAILURE_KINDS); // ['timeout', 'error', 'invalid_output', 'refused']
 * ```
 */
export const FAILURE_KINDS = ['timeout', 'error', 'invalid_output', 'refused'] as const;

/**
 * One of {@link FAILURE_KINDS}.
 *
 * @example
 * ```ts
 * import type { FailureKind } from '@parley/pipeline';
 *
 * const kind: FailureKind = 'timeout';
 * ```
 */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/**
 * What happens when a node fails in one way: try again up to `retries` more times, then `after`:
 * `skip` the node (its dependents are skipped too), `escalate` it, or `abort` the whole run.
 *
 * @example
 * ```ts
 * import type { NodeFailurePolicy } from '@parley/pipeline';
 *
 * const modelErrors: NodeFailurePolicy = { retries: 1, after: 'abort' };
 * ```
 */
export interface NodeFailurePolicy {
  readonly retries: number;
  readonly after: 'skip' | 'escalate' | 'abort';
}

/**
 * The error table of the reference pipeline (§4.8): a timed-out or incomplete report is asked for
 * again (twice), a model error is retried once, a spawn the tree refuses is not retried; past that
 * the run aborts.
 *
 * @example
 * ```ts
 * import { DEFAULT_FAILURE_POLICIES } from '@parley/pipeline';
 *
 * console.log(DEFAULT_FAILURE_POLICIES.error); // { retries: 1, after: 'abort' }
 * ```
 */
export const DEFAULT_FAILURE_POLICIES: Readonly<Record<FailureKind, NodeFailurePolicy>> = {
  timeout: { retries: 2, after: 'abort' },
  error: { retries: 1, after: 'abort' },
  invalid_output: { retries: 2, after: 'abort' },
  refused: { retries: 0, after: 'abort' },
};

/**
 * A node runs only when a field of an upstream node's output compares as given (`review.verdict ==
 * "pass"`); otherwise it is skipped.
 *
 * @example
 * ```ts
 * import type { NodeCondition } from '@parley/pipeline';
 *
 * const passed: NodeCondition = { node: 'review', field: 'verdict', op: '==', value: 'pass' };
 * ```
 */
export interface NodeCondition {
  readonly node: string;
  readonly field: string;
  readonly op: '==' | '!=';
  readonly value: string;
}

/**
 * What every node has: an id, the nodes it waits for, an optional condition and a timeout.
 *
 * @example
 * ```ts
 * import type { NodeBase } from '@parley/pipeline';
 *
 * const base: NodeBase = { id: 'structure', dependsOn: ['intel'] };
 * ```
 */
export interface NodeBase {
  readonly id: string;
  readonly dependsOn?: readonly string[];
  readonly condition?: NodeCondition;
  /** How long one attempt (or an approval) may take; {@link DEFAULT_NODE_TIMEOUT_MS} by default. */
  readonly timeoutMs?: number;
}

/**
 * A node an agent works on: spawned as a child run (`spawn`, the default) or done by the owner
 * itself (`self`), producing the artifact `output`.
 *
 * @example
 * ```ts
 * import type { TaskNode } from '@parley/pipeline';
 *
 * const intel: TaskNode = { id: 'intel', kind: 'task', agent: 'finance_researcher', output: 'Finance_Research_Brief.json' };
 * ```
 */
export interface TaskNode extends NodeBase {
  readonly kind: 'task';
  readonly agent: string;
  readonly action?: 'spawn' | 'self';
  readonly output?: string;
  /** Overrides {@link DEFAULT_FAILURE_POLICIES} per failure kind. */
  readonly onFailure?: Partial<Readonly<Record<FailureKind, NodeFailurePolicy>>>;
  /**
   * What a runner does with an attempt whose outcome is unknown: one started by a runner whose
   * lease on the node ran out without a result (it stopped, crashed or stalled). `rerun` (the
   * default) runs the work again, so it runs at least once; `report` never runs it again: the node
   * fails with code `unknown_outcome`, for work that must not happen twice (a payment, an order).
   */
  readonly onUnknown?: 'rerun' | 'report';
}

/**
 * A review gate: the agent judges the output of `reviews` (pass / revise / block); a revise
 * re-runs that node (or the upstream node `revise_target` names) with the issues, at most
 * `maxRevisions` rounds, then the node escalates to `escalateTo`, as it does on a block.
 *
 * @example
 * ```ts
 * import type { ReviewNode } from '@parley/pipeline';
 *
 * const review: ReviewNode = { id: 'review', kind: 'review', agent: 'reviewer', reviews: 'converge', dependsOn: ['converge'], maxRevisions: 3, escalateTo: 'ceo_coo' };
 * ```
 */
export interface ReviewNode extends Omit<TaskNode, 'kind'> {
  readonly kind: 'review';
  readonly reviews: string;
  readonly maxRevisions?: number;
  readonly escalateTo?: string;
}

/**
 * A human approval: the run waits (until `timeoutMs`) for `runner.decide()`.
 *
 * @example
 * ```ts
 * import type { ApprovalNode } from '@parley/pipeline';
 *
 * const approve: ApprovalNode = { id: 'approve', kind: 'approval', channel: '#approvals', dependsOn: ['review'] };
 * ```
 */
export interface ApprovalNode extends NodeBase {
  readonly kind: 'approval';
  readonly channel?: string;
}

/**
 * Any node of a pipeline.
 *
 * @example
 * ```ts
 * import type { PipelineNode } from '@parley/pipeline';
 *
 * const node: PipelineNode = { id: 'approve', kind: 'approval' };
 * ```
 */
export type PipelineNode = TaskNode | ReviewNode | ApprovalNode;

/**
 * What {@link definePipeline} takes.
 *
 * @example
 * ```ts
 * import type { PipelineInit } from '@parley/pipeline';
 *
 * const init: PipelineInit = { name: 'daily', trigger: { cron: '30 7 * * 1-5' }, nodes: [{ id: 'a', kind: 'task', agent: 'x' }] };
 * ```
 */
export interface PipelineInit {
  readonly name: string;
  /** The agent that owns the run and under which spawn nodes are spawned. */
  readonly owner?: string;
  readonly trigger?: { readonly cron: string };
  readonly nodes: readonly PipelineNode[];
}

/**
 * A checked pipeline: nodes in definition order with every default filled in.
 *
 * @example
 * ```ts
 * import { definePipeline, type PipelineDefinition } from '@parley/pipeline';
 *
 * const pipeline: PipelineDefinition = definePipeline({ name: 'p', nodes: [{ id: 'a', kind: 'approval' }] });
 * console.log(pipeline.nodes[0]?.timeoutMs); // 900000
 * ```
 */
export interface PipelineDefinition {
  readonly name: string;
  readonly owner?: string | undefined;
  readonly trigger?: { readonly cron: string } | undefined;
  readonly nodes: readonly (PipelineNode & {
    readonly dependsOn: readonly string[];
    readonly timeoutMs: number;
  })[];
  /** A short digest of the definition's content; a run resumes only under the same digest. */
  readonly digest: string;
}
