import type { Committed, JsonValue, RecordCodec } from '@parley/core';
import { REVIEW_SEVERITIES, type ReviewIssue } from '@parley/conflict';
import { z } from 'zod';
import type { RetryContext } from './retry-context.js';
import { FAILURE_KINDS, type FailureKind, type PipelineDefinition } from './types.js';
import { jsonCopy } from './internal/json-copy.js';

/**
 * The states a node goes through: `pending` → `running` (or `waiting` for a person) → `done`,
 * `skipped`, `failed`, `escalated` or `rejected`.
 *
 * @example
 * ```ts
 * import { NODE_STATUSES } from '@parley/pipeline';
 *
 * console.log(NODE_STATUSES.length); // 8
 * ```
 */
export const NODE_STATUSES = [
  'pending',
  'running',
  'waiting',
  'done',
  'skipped',
  'failed',
  'escalated',
  'rejected',
] as const;

/**
 * One of {@link NODE_STATUSES}.
 *
 * @example
 * ```ts
 * import type { NodeStatus } from '@parley/pipeline';
 *
 * const status: NodeStatus = 'waiting';
 * ```
 */
export type NodeStatus = (typeof NODE_STATUSES)[number];

/**
 * How a run ended: every node done or skipped (`succeeded`), or the worst of a failed, escalated
 * or rejected node. A run this process stops driving (closed, store failure) has no status: it resumes.
 *
 * @example
 * ```ts
 * import type { RunStatus } from '@parley/pipeline';
 *
 * const status: RunStatus = 'escalated';
 * ```
 */
export type RunStatus = 'succeeded' | 'failed' | 'escalated' | 'rejected';

const Failures = z.partialRecord(z.enum(FAILURE_KINDS), z.number().int().min(0));
const Json = z.custom<JsonValue>(() => true);
/** @internal A review issue as stored. */
export const Issue = z.strictObject({
  severity: z.enum(REVIEW_SEVERITIES).optional(),
  field: z.string().optional(),
  description: z.string(),
  suggestion: z.string().optional(),
});
const Revise = z.strictObject({
  round: z.number().int().min(1),
  issues: z.array(Issue),
  summary: z.string().optional(),
  target: z.string().optional(),
  attempt: z.number().int().min(1),
});
const Retry = z.strictObject({
  kind: z.enum(FAILURE_KINDS),
  message: z.string(),
  missingFields: z.array(z.string()).optional(),
  clarification: z
    .strictObject({ previous_report: Json, missing_fields: z.array(z.string()), question: z.string() })
    .optional(),
});
const RevisedFor = z.strictObject({ review: z.string(), attempt: z.number().int().min(1) });

const NodeRecordSchema = z.strictObject({
  v: z.literal(1),
  status: z.enum(NODE_STATUSES),
  attempts: z.number().int().min(0),
  spawns: z.number().int().min(0),
  revision: z.number().int().min(0),
  failures: Failures,
  owner: z.string().optional(),
  leaseUntil: z.number().optional(),
  spawnId: z.string().optional(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  deadlineAt: z.number().optional(),
  output: Json.optional(),
  code: z.string().optional(),
  reason: z.string().optional(),
  escalateTo: z.string().optional(),
  abort: z.boolean().optional(),
  revise: Revise.optional(),
  revisedFor: RevisedFor.optional(),
  retry: Retry.optional(),
});

const RunRecordSchema = z.strictObject({
  v: z.literal(1),
  name: z.string(),
  digest: z.string(),
  status: z.enum(['running', 'succeeded', 'failed', 'escalated', 'rejected']),
  createdAt: z.number(),
  endedAt: z.number().optional(),
  input: Json.optional(),
});

/**
 * A node's state as stored (plain JSON), what `runner.snapshot()` and the `node` event report.
 *
 * @example
 * ```ts
 * import type { NodeRecord } from '@parley/pipeline';
 *
 * const record: NodeRecord = { v: 1, status: 'done', attempts: 1, spawns: 1, revision: 0, failures: {}, output: { verdict: 'pass' } };
 * ```
 */
export interface NodeRecord {
  readonly v: 1;
  readonly status: NodeStatus;
  /** Attempts started (every kind, restarts and revisions included). */
  readonly attempts: number;
  /** Runs spawned in the topology for this node. */
  readonly spawns: number;
  /** Times a review had this node redo its work. */
  readonly revision: number;
  /** Failures so far, per kind. */
  readonly failures: Readonly<Partial<Record<FailureKind, number>>>;
  /** The runner holding its lease (running, or about to start): from the kernel record, never stored in the data. */
  readonly owner?: string | undefined;
  /** Until when its owner's lease holds; after that another runner may take it over (or report it, `onUnknown`). */
  readonly leaseUntil?: number | undefined;
  readonly spawnId?: string | undefined;
  readonly startedAt?: number | undefined;
  readonly endedAt?: number | undefined;
  /** An approval's absolute deadline. */
  readonly deadlineAt?: number | undefined;
  readonly output?: JsonValue | undefined;
  readonly code?: string | undefined;
  readonly reason?: string | undefined;
  readonly escalateTo?: string | undefined;
  /** Set on the failure that aborted the run. */
  readonly abort?: boolean | undefined;
  /**
   * A review node's revise request, stored when the reviewer asked for it and before anything is
   * re-run, so a restarted run re-runs the revision with these issues instead of judging again.
   */
  readonly revise?: ReviseRequest | undefined;
  /** Why its next attempt repeats the last one (the last failure, while it is retried). */
  readonly retry?: RetryContext | undefined;
  /** The revise request (review node and its attempt) this node's latest run answers. */
  readonly revisedFor?: { readonly review: string; readonly attempt: number } | undefined;
}

/**
 * A reviewer's stored `revise`: the round, the issues and summary, the node it names, and the
 * review attempt that asked for it.
 *
 * @example
 * ```ts
 * import type { ReviseRequest } from '@parley/pipeline';
 *
 * const request: ReviseRequest = { round: 1, issues: [{ description: 'No stop loss' }], attempt: 1 };
 * ```
 */
export interface ReviseRequest {
  readonly round: number;
  readonly issues: readonly ReviewIssue[];
  readonly summary?: string | undefined;
  readonly target?: string | undefined;
  readonly attempt: number;
}

/**
 * A run's header as stored.
 *
 * @example
 * ```ts
 * import type { RunRecord } from '@parley/pipeline';
 *
 * const run: RunRecord = { v: 1, name: 'daily', digest: '0badf00d', status: 'running', createdAt: 0 };
 * ```
 */
export interface RunRecord {
  readonly v: 1;
  readonly name: string;
  /** The definition's digest: a run resumes only under the same one. */
  readonly digest: string;
  readonly status: 'running' | RunStatus;
  readonly createdAt: number;
  readonly endedAt?: number | undefined;
  readonly input?: JsonValue | undefined;
}

/**
 * Reads and writes a node's record in the durable kernel of `@parley/core`: kind
 * `parley.pipeline.node`, format 1. A record of another kind or format, or data that fails its
 * check, is refused (`corrupt_record`) and never run or overwritten. The node's lease (owner,
 * expiry, fencing token) lives in the kernel's envelope, not in the data: `owner` and `leaseUntil`
 * are filled in from it when a record is read, and never stored twice.
 *
 * @example
 * ```ts
 * import { createKernel, createMemoryStore } from '@parley/core';
 * import { NODE_RECORD } from '@parley/pipeline';
 *
 * const kernel = createKernel({ store: createMemoryStore() });
 * const node = await kernel.read('pipeline:node:r1:intel', NODE_RECORD);
 * console.log(NODE_RECORD.kind, node); // parley.pipeline.node undefined
 * ```
 */
export const NODE_RECORD: RecordCodec<NodeRecord> = {
  kind: 'parley.pipeline.node',
  version: 1,
  decode(data) {
    const parsed = NodeRecordSchema.safeParse(data);
    return parsed.success ? (parsed.data as NodeRecord) : undefined; // the schema describes NodeRecord
  },
  encode(value) {
    // Every field is built from checked JSON (outputs are parsed JSON, decisions are strings), so the
    // stored data is the record's own fields, without the lease's two and the undefined ones.
    const data: Record<string, JsonValue> = {};
    for (const key in value) {
      if (key === 'owner' || key === 'leaseUntil') continue;
      const field = value[key as keyof NodeRecord];
      if (field !== undefined) data[key] = field as JsonValue; // checked JSON, as above
    }
    return data;
  },
};

/** @internal A committed node record as the runner reports it: its lease's owner and expiry filled in. */
export function nodeView(committed: Committed<NodeRecord> | undefined, pending: NodeRecord): NodeRecord {
  if (committed === undefined) return pending;
  const { lease, value } = committed;
  if (lease === null) return value;
  // Copied field by field, not spread: V8 spreads a record built field by field slowly.
  const view: Record<string, unknown> = {};
  for (const key in value) view[key] = value[key as keyof NodeRecord];
  view['owner'] = lease.owner;
  view['leaseUntil'] = lease.expiresAt;
  return view as unknown as NodeRecord; // the record's own fields and its lease's two
}

export const runKey = (prefix: string, runId: string): string => `${prefix}run:${runId}`;
export const nodeKey = (prefix: string, runId: string, node: string): string =>
  `${prefix}node:${runId}:${node}`;

/** A run header's data when it passes its schema. */
function parseRunRecord(data: unknown): RunRecord | undefined {
  const parsed = RunRecordSchema.safeParse(data);
  return parsed.success ? (parsed.data as RunRecord) : undefined; // the schema describes RunRecord
}

/**
 * Reads and writes a run's header in the durable kernel of `@parley/core`: kind
 * `parley.pipeline.run`, format 1, stored at `<keyPrefix>run:<run id>` (the runner's `keyPrefix`,
 * default `pipeline:`) next to its nodes at `<keyPrefix>node:<run id>:<node id>`. Use it to list or
 * show runs without a runner (`kernel.list('pipeline:run:', RUN_RECORD)`); data that fails its
 * check is refused (`corrupt_record`).
 *
 * @example
 * ```ts
 * import { createKernel, createMemoryStore } from '@parley/core';
 * import { RUN_RECORD } from '@parley/pipeline';
 *
 * const kernel = createKernel({ store: createMemoryStore() });
 * const run = await kernel.read('pipeline:run:r1', RUN_RECORD);
 * console.log(RUN_RECORD.kind, run); // parley.pipeline.run undefined
 * ```
 */
export const RUN_RECORD: RecordCodec<RunRecord> = {
  kind: 'parley.pipeline.run',
  version: 1,
  decode: parseRunRecord,
  encode: jsonCopy, // as its JSON text would be read back: undefined fields left out
};

/**
 * How long a record of a running run lives past its write: `ttlMs` plus the run's longest wait
 * (the longest node timeout or approval wait, plus the lease grace). A running run writes again
 * within its longest wait, so none of its records expires while it runs, and all of them live at
 * least `ttlMs` past its last write. A finished run's header lives as long, outliving its nodes.
 */
export function recordTtlMs(definition: PipelineDefinition, ttlMs: number, leaseGraceMs: number): number {
  let longest = 0;
  for (const node of definition.nodes) longest = Math.max(longest, node.timeoutMs);
  return ttlMs + longest + leaseGraceMs;
}

/** Tells whether a status is final. */
export function isFinal(status: NodeStatus): boolean {
  return status !== 'pending' && status !== 'running' && status !== 'waiting';
}
