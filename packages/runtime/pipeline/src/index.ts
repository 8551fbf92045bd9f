/**
 * Pipelines of agents: a typed DAG definition (in code, or the reference DSL), a runner that keeps
 * every node's state in the core `Store` and resumes after a restart, spawn limits through the
 * envelope topology, failure policies per failure kind, review gates and human approvals, a live
 * Mermaid drawing and cron triggers on the injected clock.
 *
 * @packageDocumentation
 * @module @parley/pipeline
 */
export { definePipeline, DEFAULT_NODE_TIMEOUT_MS, MAX_PIPELINE_NODES } from './define.js';
export { parsePipeline } from './dsl.js';
export type { ParsePipelineResult } from './dsl.js';
export { FAILURE_KINDS, DEFAULT_FAILURE_POLICIES } from './types.js';
export type {
  FailureKind,
  NodeFailurePolicy,
  NodeCondition,
  NodeBase,
  TaskNode,
  ReviewNode,
  ApprovalNode,
  PipelineNode,
  PipelineInit,
  PipelineDefinition,
} from './types.js';
export { planRun } from './plan.js';
export type { RunPlan } from './plan.js';
export { NODE_STATUSES, NODE_RECORD, RUN_RECORD } from './records.js';
export { revisionOrder, toReviseRequest } from './revision.js';
export { nodeStep } from './node-step.js';
export { afterFailure } from './failure-policy.js';
export { attemptStep } from './attempt-step.js';
export type { AttemptState, AttemptEvent, AttemptEffect, AttemptOutcome } from './attempt-step.js';
export { attemptSpawn, spawnVerdict } from './spawn-step.js';
export type { AttemptSpawn, SpawnVerdict } from './spawn-step.js';
export type { NodeEvent, NodeEffect } from './node-step.js';
export type { NodeStatus, RunStatus, NodeRecord, RunRecord, ReviseRequest } from './records.js';
export { createPipelineRunner } from './runner.js';
export type {
  PipelineRunner,
  PipelineRunnerOptions,
  PipelineRunnerEvents,
  NodeContext,
  StartRunOptions,
  RunResult,
  ApprovalDecision,
} from './runner-types.js';
export type { RetryContext } from './retry-context.js';
export { SESSION_TOOLS, sessionToolsAt } from './session-tools.js';
export type { SessionTool } from './session-tools.js';
export { toPipelineMermaid } from './mermaid.js';
export { parseCron, nextCronRun, previousCronRun } from './cron.js';
export type { CronSchedule, CronParseResult } from './cron.js';
export { createCronTrigger } from './cron-trigger.js';
export { MAX_COUNTED_SKIPS, MAX_CRON_KEY_LENGTH } from './cron-trigger-types.js';
export type { CronFire, CronTrigger, CronTriggerOptions } from './cron-trigger-types.js';
export { PipelineError, PIPELINE_ERROR_CODES, RUN_REFUSAL_CODES } from './errors.js';
export type { PipelineErrorCode, RunRefusalCode } from './errors.js';
export { toMermaid } from './former-names.js';
export type { FailurePolicy } from './former-names.js';
