// A @parley/pipeline definition run as a Restate workflow: the pipeline's pure steps (planRun,
// nodeStep, afterFailure) decide; each attempt is a journaled ctx.run; approvals wait on durable promises.
import {
  afterFailure,
  type ApprovalDecision,
  type ApprovalNode,
  type NodeEvent,
  type NodeRecord,
  nodeStep,
  planRun,
} from '@parley/pipeline';
import * as restate from '@restatedev/restate-sdk';
import { ParleyRestateError } from './errors.js';
import { type AttemptHost, beginAttempt, runAttempt } from './internal/pipeline-attempt.js';
import { type Apply, type Finish, LIFE_MS, reviewRound, type WorkNode } from './internal/pipeline-review.js';
import type { PipelineWorkflowHandlers, PipelineWorkflowOptions } from './pipeline-workflow-types.js';

const NODES = 'nodes';

/** A decision as `decide` hands it to the run: with the time it was taken. */
interface Decided {
  readonly decision: ApprovalDecision;
  readonly at: number;
}

/**
 * Defines a `@parley/pipeline` definition as a Restate workflow: the workflow id is the run id,
 * `run` drives it with the pipeline's pure steps (`planRun` schedules, `nodeStep` moves each
 * node, `afterFailure` applies the failure policy), each task attempt is one journaled `ctx.run`
 * (a process killed mid-run resumes from the journal; an attempt that returned is not run again),
 * bounded by the node's `timeoutMs` (`attemptStep`, with a durable timer raced against it; a
 * timed-out attempt's late result is never applied), each attempt of a `spawn` node takes a slot
 * in `topology` when one is given (`attemptSpawn`, `spawnVerdict`: a refusal fails it `refused`),
 * and each approval waits on a durable promise until its deadline (a durable timer). `decide`
 * hands a decision to a waiting approval; `nodes` reads the records. Nodes run one at a time.
 *
 * A review node runs its reviewer as an attempt and judges the answer with `@parley/conflict`'s
 * `judgeReviewVerdict`: pass ends it done, block or a malformed verdict escalates it, a revise
 * re-runs the nodes `@parley/pipeline`'s `revisionOrder` names with the issues (each re-run a
 * journaled attempt) and asks again, up to `maxRevisions` rounds (then `revise_limit`).
 *
 * @throws ParleyRestateError `invalid_argument` for an empty name or a task node with
 * `onUnknown: 'report'` (Restate runs an attempt again when its process died before the attempt's
 * result was journaled).
 * @example
 * ```ts
 * import { definePipeline } from '@parley/pipeline';
 * import { definePipelineWorkflow } from '@parley/restate';
 *
 * const pipeline = definePipeline({
 *   name: 'brief',
 *   nodes: [
 *     { id: 'draft', kind: 'task', agent: 'writer' },
 *     { id: 'approve', kind: 'approval', dependsOn: ['draft'] },
 *   ],
 * });
 * const workflow = definePipelineWorkflow({ name: 'brief', pipeline, work: () => ({ text: 'draft' }) });
 * console.log(workflow.name); // brief
 * ```
 */
export function definePipelineWorkflow<TName extends string>(
  options: PipelineWorkflowOptions<TName>,
): restate.WorkflowDefinition<TName, PipelineWorkflowHandlers> {
  const { pipeline, work } = options;
  if (typeof options.name !== 'string' || options.name.length === 0) {
    throw new ParleyRestateError('invalid_argument', 'name must be a non-empty string');
  }
  for (const node of pipeline.nodes) {
    if (node.kind === 'task' && node.onUnknown === 'report') {
      // Restate runs an attempt again when its process died before the result was journaled.
      const text = `Node "${node.id}" asks onUnknown: 'report', which Restate cannot honour (it re-runs the attempt)`;
      throw new ParleyRestateError('invalid_argument', text);
    }
  }

  const handlers: PipelineWorkflowHandlers = {
    run: async (ctx, input) => {
      const records: Record<string, NodeRecord> = {};
      const apply = (id: string, event: NodeEvent, now: number): NodeRecord | undefined => {
        const next = nodeStep(records[id], event, now).value;
        if (next !== undefined && next !== records[id]) {
          records[id] = next;
          ctx.set(NODES, records);
        }
        return next;
      };
      for (;;) {
        const plan = planRun(pipeline, records);
        const now = await ctx.date.now();
        for (const { id, reason } of plan.skip) apply(id, { type: 'skip', reason, lifeMs: LIFE_MS }, now);
        if (plan.skip.length > 0) continue;
        if (plan.finished) return { status: plan.status ?? 'succeeded', nodes: records };
        const id = plan.start[0];
        const node = pipeline.nodes.find((n) => n.id === id);
        /* v8 ignore next -- one node runs at a time, so an unfinished run always has a node to start */
        if (node === undefined) throw new restate.TerminalError('The plan has nothing to start');
        if (node.kind === 'approval') await approve(ctx, node as ApprovalNode & { timeoutMs: number }, apply);
        else {
          const worked = node as WorkNode;
          const host: AttemptHost = {
            ctx,
            apply,
            run: { input, records },
            work,
            topology: options.topology,
            spawnId: options.spawnId,
            owner: pipeline.owner,
          };
          const finish: Finish =
            worked.kind === 'review'
              ? reviewRound(pipeline, worked, {
                  ctx,
                  apply,
                  run: host.run,
                  begin: (target, revisedFor) => beginAttempt(host, target, revisedFor),
                  attempt: (target, begun, revision) => runAttempt(host, target, begun, { revision }),
                })
              : async () => undefined;
          await attempts(host, worked, finish);
        }
      }
    },

    decide: restate.handlers.workflow.shared(async (ctx, input) => {
      const node = pipeline.nodes.find((n) => n.id === input?.node);
      if (node?.kind !== 'approval') {
        return { ok: false, code: 'unknown_node', message: `No approval node ${String(input?.node)}` };
      }
      const decision = input.decision;
      if (typeof decision?.approved !== 'boolean') {
        return { ok: false, code: 'malformed', message: 'A decision needs approved: true or false' };
      }
      const record = (await ctx.get<Record<string, NodeRecord>>(NODES))?.[node.id];
      const at = await ctx.date.now();
      const judged = nodeStep(record, { type: 'decide', decision, lifeMs: LIFE_MS }, at);
      if (judged.effects.some((effect) => effect.type === 'stale')) {
        const status = record?.status ?? 'pending';
        return {
          ok: false,
          code: 'not_waiting',
          message: `${node.id} is ${status}, not waiting for a decision`,
        };
      }
      // A decision past the stored deadline that reached a node the run has not expired yet (a race
      // with the deadline timer; not reproducible on demand against a real server).
      /* v8 ignore next 3 */
      if (judged.effects.some((effect) => effect.type === 'expired')) {
        return { ok: false, code: 'expired', message: `The decision on ${node.id} came after its deadline` };
      }
      // Two decisions racing before the run applied the first: the durable promise takes one.
      const promise = ctx.promise<Decided>(`approval:${node.id}`);
      const taken =
        (await promise.peek()) === undefined && (await promise.resolve({ decision, at }).then(ok, no));
      /* v8 ignore next -- only two decisions racing within the same moment reach it */
      if (!taken) return { ok: false, code: 'not_waiting', message: `${node.id} was decided already` };
      return { ok: true };
    }),

    nodes: restate.handlers.workflow.shared(
      async (ctx) => (await ctx.get<Record<string, NodeRecord>>(NODES)) ?? {},
    ),
  };

  /** One approval: waiting until a decision (applied at the time it was taken) or the stored deadline. */
  async function approve(
    ctx: restate.WorkflowContext,
    node: ApprovalNode & { timeoutMs: number },
    apply: Apply,
  ) {
    const startedAt = await ctx.date.now();
    let record = apply(
      node.id,
      { type: 'wait', deadlineAt: startedAt + node.timeoutMs, lifeMs: LIFE_MS },
      startedAt,
    );
    const promise = ctx.promise<Decided>(`approval:${node.id}`);
    while (record?.status === 'waiting') {
      const now = await ctx.date.now();
      try {
        const decided = await promise.get().orTimeout(Math.max((record.deadlineAt ?? 0) - now, 0));
        record = apply(node.id, { type: 'decide', decision: decided.decision, lifeMs: LIFE_MS }, decided.at);
      } catch (error) {
        if (!(error instanceof restate.TimeoutError)) throw error;
        record = apply(node.id, { type: 'expire', lifeMs: LIFE_MS }, await ctx.date.now());
      }
    }
  }

  /**
   * A task or review node's attempts: each one journaled, its failures judged by the pipeline's policy
   * rule; `finish` decides what a successful attempt's output does (a task ends done; a review judges it).
   */
  async function attempts(host: AttemptHost, node: WorkNode, finish: Finish) {
    const { ctx, apply } = host;
    const lifeMs = LIFE_MS;
    for (;;) {
      const begun = await beginAttempt(host, node, undefined);
      const started = begun.record;
      let outcome = await runAttempt(host, node, begun, { retry: started.retry });
      const now = await ctx.date.now();
      if (outcome.ok) {
        const finished = await finish(outcome.output, started, now);
        if (finished === 'again') continue;
        if (finished === undefined) {
          apply(node.id, { type: 'end', status: 'done', output: outcome.output, lifeMs }, now);
          return;
        }
        if (finished.ok) return;
        outcome = { ...finished, kind: 'error' };
      }
      const { kind, message } = outcome;
      const next = afterFailure(node, started.failures, kind);
      const retry = next === 'retry' ? { kind, message } : undefined;
      apply(node.id, { type: 'fail', kind, message, retry, lifeMs }, now);
      if (next === 'retry') continue;
      const status = next === 'abort' ? 'failed' : next === 'skip' ? 'skipped' : 'escalated';
      const abort = next === 'abort' ? { abort: true } : {};
      apply(node.id, { type: 'end', status, code: kind, reason: message, lifeMs, ...abort }, now);
      return;
    }
  }

  return restate.workflow({ name: options.name, handlers });
}

const ok = (): boolean => true;
/* v8 ignore next -- a resolve that lost the race to another decision */
const no = (): boolean => false;
