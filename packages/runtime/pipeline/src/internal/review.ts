import { createReviewGate, DEFAULT_MAX_REVISIONS, type ReviewVerdict } from '@parley/conflict';
import type { JsonValue } from '@parley/core';
import type { NodeContext } from '../runner-types.js';
import type { NodeRecord, ReviseRequest } from '../records.js';
import { revisionOrder, toReviseRequest } from '../revision.js';
import type { ReviewNode } from '../types.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { type WorkOutcome, runWork } from './attempt.js';
import { outputsOf, writeNode } from './io.js';
import { holdLease } from './lease.js';

type Node = NodeContext['node'];

/** How a review node ended: its verdict output, escalated, or a failure from its work. */
export type ReviewOutcome =
  | WorkOutcome
  | {
      readonly ok: false;
      readonly kind: 'escalated';
      readonly code: string;
      readonly message: string;
      readonly output: JsonValue;
      readonly escalateTo: string | undefined;
    };

/**
 * Runs a review node through @parley/conflict's review gate: the reviewer (this node's work) judges
 * the reviewed node's output; a `revise` re-runs the upstream node `revise_target` names (by id or
 * agent) and then the reviewed node, with the issues, and the gate counts the rounds in the store
 * (per run and node), so a restarted run keeps them. `block`, too many rounds, or a malformed
 * verdict escalate.
 */
export async function runReview(
  env: RunnerEnv,
  run: ActiveRun,
  node: ReviewNode & Node,
): Promise<ReviewOutcome> {
  const max = node.maxRevisions ?? DEFAULT_MAX_REVISIONS;
  const nodes = run.definition.nodes;
  let failed: WorkOutcome | undefined;
  let broken: { readonly error: unknown } | undefined;
  let last: JsonValue = null;
  const gate = createReviewGate<JsonValue | undefined>({
    maxRevisions: max,
    maxErrorRetries: 0, // the nodes' own failure policies retry
    store: env.store,
    keyPrefix: `${env.prefix}review:`,
    ttlMs: run.ttlMs,
    clock: env.clock,
    review: async (output, { revisions }) => {
      const outcome = await work(node, {
        outputs: { ...outputsOf(run), [node.reviews]: output },
      });
      if (!outcome.ok) {
        failed = outcome;
        throw new Error('reviewer failed');
      }
      last = outcome.output;
      const record = run.records.get(node.id) as NodeRecord;
      const revise =
        revisions < max ? toReviseRequest(outcome.output, revisions + 1, record.attempts) : undefined;
      // The revise request is stored before anything re-runs: a restart re-runs it, never re-judges.
      if (
        revise !== undefined &&
        (await writeNode(
          env,
          run,
          node.id,
          { type: 'revise', revise, lifeMs: run.ttlMs },
          { quiet: true },
        )) === undefined
      ) {
        failed = { ok: false, kind: 'stopped' };
        throw new Error('lost the record');
      }
      return outcome.output as unknown as ReviewVerdict; // checked by the gate before it counts
    },
  });
  gate.on('attempt', ({ record }) => {
    if (record.status !== 'revise' || record.escalated) return;
    env.events.emit('revise', {
      runId: run.runId,
      node: node.id,
      round: record.retries,
      max,
      target: record.verdict?.revise_target,
      issues: record.verdict?.issues ?? [],
    });
  });
  const outcome = await gate
    .run({
      input: undefined,
      taskId: `${run.runId}:${node.id}`,
      signal: run.controller.signal,
      generate: async () => {
        // A revise the reviewer just asked for, or one a stopped process left: both are stored.
        const revise = run.records.get(node.id)?.revise;
        if (revise === undefined) return run.records.get(node.reviews)?.output;
        let output: JsonValue = null;
        for (const id of revisionOrder(run.definition, node.id, revise.target))
          output = await redo(nodes.find((n) => n.id === id) as Node, revise);
        return output; // the reviewed node's, re-run last
      },
    })
    .catch((error: unknown) => {
      if (run.controller.signal.aborted) return undefined; // cancelled: the run is stopping
      throw error;
    });
  if (broken !== undefined) throw broken.error; // the store failed or a record is corrupt: the run stops
  if (outcome === undefined || (failed !== undefined && !failed.ok && failed.kind === 'stopped'))
    return { ok: false, kind: 'stopped' };
  if (outcome.ok) return { ok: true, output: last };
  if (failed !== undefined) return failed;
  return {
    ok: false,
    kind: 'escalated',
    code: outcome.code,
    message: outcome.report.summary,
    output: last,
    escalateTo: node.escalateTo,
  };

  /**
   * Runs a node's work inside the gate, keeping what the store threw: the gate would take it for
   * the reviewer's failure, but it stops the run (and the run resumes) like a failed write anywhere.
   */
  async function work(target: Node, extra: Parameters<typeof runWork>[3]): Promise<WorkOutcome> {
    try {
      return await runWork(env, run, target, extra);
    } catch (error) {
      broken ??= { error };
      throw error;
    }
  }

  /** Extends this review node's lease over the next attempt of the node it re-runs. */
  function renew(timeoutMs: number): Promise<boolean> {
    return holdLease(env, run, node.id, timeoutMs + env.leaseGraceMs);
  }

  /**
   * Re-runs an upstream node with the reviewer's issues and stores its new output (revision + 1),
   * unless its record says it already answered this revise request.
   */
  async function redo(target: Node, revise: ReviseRequest): Promise<JsonValue> {
    const before = run.records.get(target.id) as NodeRecord;
    const revisedFor = { review: node.id, attempt: revise.attempt };
    if (
      before.status === 'done' &&
      before.revisedFor?.review === node.id &&
      before.revisedFor.attempt === revise.attempt
    )
      return before.output ?? null;
    const revision = { round: revise.round, issues: revise.issues, summary: revise.summary };
    const outcome = await work(target, { revision, renew, revisedFor });
    const record = run.records.get(target.id) as NodeRecord;
    if (!outcome.ok) failed = outcome;
    // A failed revision leaves the node as it was (done, its earlier output); the review carries the failure.
    const stored =
      outcome.ok || outcome.kind !== 'stopped'
        ? await writeNode(
            env,
            run,
            target.id,
            {
              type: 'end',
              status: 'done',
              output: outcome.ok ? outcome.output : before.output,
              code: outcome.ok ? undefined : record.code,
              reason: outcome.ok ? undefined : record.reason,
              revised: outcome.ok,
              lifeMs: run.ttlMs,
            },
            { release: true },
          )
        : undefined;
    if (!outcome.ok) throw new Error(`${target.id} could not revise`);
    if (stored === undefined) {
      failed = { ok: false, kind: 'stopped' };
      throw new Error('lost the record');
    }
    return outcome.output;
  }
}
