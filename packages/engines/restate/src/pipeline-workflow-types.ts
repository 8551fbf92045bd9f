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
 * What {@link definePipelineWorkflow} takes: the workflow's name, a checked pipeline (task,
 * review and approval nodes), the same `work` function the Store runner takes, and optionally the
 * spawn tree (`topology`, `spawnId`) as the Store runner takes them.
 *
 * @example
 * ```ts
 * import { createTopology } from '@parley/envelope';
 * import { definePipeline } from '@parley/pipeline';
 * import type { PipelineWorkflowOptions } from '@parley/restate';
 *
 * const topology = createTopology({ maxSpawnDepth: 1 });
 * topology.register({ id: 'editor' });
 * const options: PipelineWorkflowOptions<'brief'> = {
 *   name: 'brief',
 *   pipeline: definePipeline({
 *     name: 'brief',
 *     owner: 'editor',
 *     nodes: [{ id: 'draft', kind: 'task', agent: 'writer', timeoutMs: 60_000 }],
 *   }),
 *   work: () => ({ text: 'draft' }),
 *   topology, // each attempt of draft takes a slot under editor
 * };
 * ```
 */
export interface PipelineWorkflowOptions<TName extends string> {
  readonly name: TName;
  readonly pipeline: PipelineDefinition;
  /** Does a task node's work; its result (JSON) is journaled, so an attempt that returned is never run again. */
  readonly work: PipelineRunnerOptions['work'];
  /**
   * The spawn tree (`@parley/envelope`'s `createTopology`), as the Store runner takes it: each
   * attempt of a `spawn` node takes a slot under the pipeline's `owner` (`spawnWhenFree`, a
   * journaled step), so its limits (depth, children per agent, concurrency) hold; a refusal fails
   * the attempt (`refused`). It is this app process's object: its limits count the runs this
   * process spawned.
   */
  readonly topology?: PipelineRunnerOptions['topology'];
  /** Names each spawned run; `<runId>/<node>-<n>` by default. */
  readonly spawnId?: PipelineRunnerOptions['spawnId'];
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
