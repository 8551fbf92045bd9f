// A review node's rounds inside a pipeline workflow: the reviewer's answer judged by
// @parley/conflict's judgeReviewVerdict, the revise request read by @parley/pipeline's
// toReviseRequest, the nodes re-run in revisionOrder. Nothing here decides; it runs what they say.
import { DEFAULT_MAX_REVISIONS, judgeReviewVerdict } from '@parley/conflict';
import type { JsonValue } from '@parley/core';
import {
  type AttemptSpawn,
  type NodeContext,
  type NodeEvent,
  type NodeRecord,
  type PipelineDefinition,
  type ReviewNode,
  revisionOrder,
  type TaskNode,
  toReviseRequest,
} from '@parley/pipeline';
import type * as restate from '@restatedev/restate-sdk';

/** How long node records would live in a Store; nodeStep needs it, Restate keeps the workflow's state itself. */
export const LIFE_MS = 7 * 24 * 60 * 60_000;

/** An attempt whose start is stored: the node's record after it, and the spawn it asks for. */
export interface Begun {
  readonly record: NodeRecord;
  readonly spawn: AttemptSpawn | undefined;
}

export type Apply = (id: string, event: NodeEvent, now: number) => NodeRecord | undefined;
export type WorkNode = (TaskNode | ReviewNode) & {
  readonly dependsOn: readonly string[];
  readonly timeoutMs: number;
};
export type Outcome =
  | { readonly ok: true; readonly output: JsonValue }
  | { readonly ok: false; readonly kind: 'error' | 'timeout' | 'refused'; readonly message: string };

/** The run's input and its node records (the workflow's state). */
export interface RunState {
  readonly input: JsonValue | null;
  readonly records: Readonly<Record<string, NodeRecord>>;
}

/**
 * What a successful attempt's output does: `undefined` ends the node done with it, `again` starts
 * another attempt, `{ ok: true }` means the node was ended here, `{ ok: false }` is a failure for
 * the node's failure policy.
 */
export type Finish = (
  output: JsonValue,
  started: NodeRecord,
  now: number,
) => Promise<undefined | 'again' | { readonly ok: true } | { readonly ok: false; readonly message: string }>;

interface Host {
  readonly ctx: restate.WorkflowContext;
  readonly apply: Apply;
  readonly run: RunState;
  /** Stores the start of a node's next attempt (a revision: `revisedFor` set); its record after it. */
  begin(node: WorkNode, revisedFor: NodeRecord['revisedFor']): Promise<Begun>;
  /** Runs the attempt just begun (journaled, bounded by the node's timeout). */
  attempt(node: WorkNode, begun: Begun, revision: NodeContext['revision']): Promise<Outcome>;
}

/** The `finish` of review node `node`: pass ends it done, block or a bad verdict escalates, revise re-runs and asks again. */
export function reviewRound(pipeline: PipelineDefinition, node: ReviewNode & WorkNode, host: Host): Finish {
  const max = node.maxRevisions ?? DEFAULT_MAX_REVISIONS;
  let rounds = 0;
  return async (output, started, now) => {
    const escalate = (code: string, reason: string) => {
      const end = {
        type: 'end',
        status: 'escalated',
        output,
        code,
        reason,
        escalateTo: node.escalateTo,
      } as const;
      host.apply(node.id, { ...end, lifeMs: LIFE_MS }, now);
      return { ok: true } as const;
    };
    const judged = judgeReviewVerdict(output);
    if (judged.kind === 'pass') return undefined;
    if (judged.kind === 'escalate') {
      const reason =
        judged.reason === 'invalid_verdict' ? judged.message : `the reviewer answered ${judged.reason}`;
      return escalate(judged.reason, reason);
    }
    if (rounds >= max) return escalate('revise_limit', `the ${max} revision rounds are used`);
    const revise = toReviseRequest(output, rounds + 1, started.attempts);
    /* v8 ignore next -- judgeReviewVerdict accepted it as a revise; toReviseRequest reads the same fields */
    if (revise === undefined) return escalate('invalid_verdict', 'the revise request is malformed');
    rounds += 1;
    host.apply(node.id, { type: 'revise', revise, lifeMs: LIFE_MS }, now);
    const revision = {
      round: revise.round,
      issues: revise.issues,
      ...(revise.summary === undefined ? {} : { summary: revise.summary }),
    };
    for (const id of revisionOrder(pipeline, node.id, revise.target)) {
      const target = pipeline.nodes.find((n) => n.id === id) as WorkNode;
      const before = host.run.records[id];
      const revisedFor = { review: node.id, attempt: revise.attempt };
      const begun = await host.begin(target, revisedFor);
      const redone = await host.attempt(target, begun, revision);
      const end: NodeEvent = redone.ok
        ? { type: 'end', status: 'done', output: redone.output, revised: true, lifeMs: LIFE_MS }
        : {
            type: 'end',
            status: 'done',
            output: before?.output,
            code: 'error',
            reason: redone.message,
            lifeMs: LIFE_MS,
          };
      host.apply(id, end, await host.ctx.date.now());
      // A failed revision leaves the node as it was (done, its earlier output); the review carries the failure.
      if (!redone.ok) return { ok: false, message: `${id} could not revise: ${redone.message}` };
    }
    return 'again';
  };
}
