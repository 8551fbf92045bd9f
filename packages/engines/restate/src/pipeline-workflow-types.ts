// What a pipeline workflow takes and answers, and its handlers as Restate clients see them.
import type { JsonValue } from '@parley/core';
import type {
  ApprovalDecision,
  NodeRecord,
  PipelineDefinition,
  PipelineRunnerOptions,
  RunStatus,
} from '@parley/pipeline';
import type * as restate from '@restatedev/restate-sdk';

/**
 * What {@link definePipelineWorkflow} takes: the workflow's name, a checked pipeline (task and
 * approval nodes) and the same `work` function the Store runner takes.
 *
 * @example
 * ```ts
 * import { definePipeline } from '@parley/pipeline';
 * import type { PipelineWorkflowOptions } from '@parley/restate';
 *
 * const options: PipelineWorkflowOptions<'brief'> = {
 *   name: 'brief',
 *   pipeline: definePipeline({ name: 'brief', nodes: [{ id: 'draft', kind: 'task', agent: 'writer' }] }),
 *   work: () => ({ text: 'draft' }),
 * };
 * ```
 */
export interface PipelineWorkflowOptions<TName extends string> {
  readonly name: TName;
  readonly pipeline: PipelineDefinition;
  /** Does a task node's work; its result (JSON) is journaled, so an attempt that returned is never run again. */
  readonly work: PipelineRunnerOptions['work'];
}

/**
 * How a workflow run ended: its status and every node's record.
 *
 * @example
 * ```ts
 * import type { PipelineRunResult } from '@parley/restate';
 *
 * const result: PipelineRunResult = { status: 'succeeded', nodes: {} };
 * ```
 */
export interface PipelineRunResult {
  readonly status: RunStatus;
  readonly nodes: Readonly<Record<string, NodeRecord>>;
}

/**
 * What `decide` answers: the decision was handed to the waiting approval, or why not. The run
 * applies it with the pipeline's own `nodeStep`, at the time `decide` ran.
 *
 * @example
 * ```ts
 * import type { DecideResult } from '@parley/restate';
 *
 * const result: DecideResult = { ok: false, code: 'not_waiting', message: 'approve is done, not waiting' };
 * ```
 */
export type DecideResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'unknown_node' | 'not_waiting' | 'expired' | 'malformed';
      readonly message: string;
    };

/**
 * The handlers of a pipeline workflow, as Restate clients see them.
 *
 * @example
 * ```ts
 * import type { PipelineWorkflowHandlers } from '@parley/restate';
 *
 * type Decide = PipelineWorkflowHandlers['decide'];
 * ```
 */
export interface PipelineWorkflowHandlers {
  /** Runs the pipeline to its end. */
  run(ctx: restate.WorkflowContext, input: JsonValue | null): Promise<PipelineRunResult>;
  /** Hands a decision to a waiting approval node. */
  decide(
    ctx: restate.WorkflowSharedContext,
    input: { readonly node: string; readonly decision: ApprovalDecision },
  ): Promise<DecideResult>;
  /** The run's node records. */
  nodes(ctx: restate.WorkflowSharedContext): Promise<Readonly<Record<string, NodeRecord>>>;
}
