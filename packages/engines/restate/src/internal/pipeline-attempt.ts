// One attempt of a pipeline node inside a workflow: its spawn asked of the topology as
// @parley/pipeline's attemptSpawn and spawnVerdict say, then the work as one journaled ctx.run
// raced against a durable timer at the attempt's deadline, the winner fed to attemptStep.
import type { JsonValue } from '@parley/core';
import {
  type AttemptEvent,
  type AttemptOutcome,
  type AttemptSpawn,
  attemptSpawn,
  attemptStep,
  type NodeContext,
  type NodeRecord,
  type PipelineRunnerOptions,
  type SpawnVerdict,
  spawnVerdict,
} from '@parley/pipeline';
import * as restate from '@restatedev/restate-sdk';
import type { Apply, Begun, Outcome, RunState, WorkNode } from './pipeline-review.js';
import { LIFE_MS } from './pipeline-review.js';

type Topology = NonNullable<PipelineRunnerOptions['topology']>;

/** What an attempt needs from the workflow it runs in. */
export interface AttemptHost {
  readonly ctx: restate.WorkflowContext;
  readonly apply: Apply;
  readonly run: RunState;
  readonly work: PipelineRunnerOptions['work'];
  readonly topology: Topology | undefined;
  readonly spawnId: PipelineRunnerOptions['spawnId'];
  /** The parent spawned runs go under: the pipeline's owner. */
  readonly owner: string | undefined;
}

/** Stores the start of `node`'s next attempt (`nodeStep` `start`) with the spawn `attemptSpawn` names. */
export async function beginAttempt(
  host: AttemptHost,
  node: WorkNode,
  revisedFor: NodeRecord['revisedFor'],
): Promise<Begun> {
  const spawn =
    host.topology === undefined
      ? undefined
      : attemptSpawn({
          runId: host.ctx.key,
          node,
          spawns: host.run.records[node.id]?.spawns ?? 0,
          parent: host.owner,
          spawnId: host.spawnId,
        });
  const event = { type: 'start', spawnId: spawn?.id, spawned: spawn !== undefined, revisedFor } as const;
  const record = host.apply(node.id, { ...event, lifeMs: LIFE_MS }, await host.ctx.date.now()) as NodeRecord;
  return { record, spawn };
}

/**
 * Runs a begun attempt: takes its slot in the topology (a journaled step; a refusal is the
 * attempt's `refused` failure and no work runs), runs the work bounded by the node's timeout, and
 * gives the slot back (journaled too).
 */
export async function runAttempt(
  host: AttemptHost,
  node: WorkNode,
  begun: Begun,
  extra: { readonly retry?: NodeContext['retry']; readonly revision?: NodeContext['revision'] },
): Promise<Outcome> {
  const { ctx, topology } = host;
  const round = extra.revision === undefined ? '' : ` revision ${extra.revision.round}`;
  const label = `${node.id} attempt ${begun.record.attempts}${round}`;
  const { spawn } = begun;
  if (spawn !== undefined && topology !== undefined) {
    const verdict = await ctx.run(`${label} spawn`, () => spawnIn(topology, spawn));
    if (!verdict.ok) return { ok: false, kind: 'refused', message: verdict.message };
  }
  const context: Omit<NodeContext, 'signal'> = {
    runId: ctx.key,
    node,
    attempt: begun.record.attempts,
    input: host.run.input ?? undefined,
    outputs: outputsOf(host.run.records),
    retry: extra.retry,
    ...(spawn === undefined ? {} : { spawnId: spawn.id }),
    ...(extra.revision === undefined ? {} : { revision: extra.revision }),
  };
  const outcome = await timed(host, label, context);
  if (spawn !== undefined && topology !== undefined) {
    await ctx.run(`${label} finish`, () => {
      topology.finish(spawn.id);
    });
  }
  return outcome;
}

/** Asks the topology for the attempt's slot (waiting for a free one) and reads its answer. */
async function spawnIn(topology: Topology, spawn: AttemptSpawn): Promise<SpawnVerdict> {
  try {
    return spawnVerdict(
      await topology.spawnWhenFree({ parent: spawn.parent, id: spawn.id, role: spawn.role }),
    );
  } catch (thrown) {
    return spawnVerdict({ thrown });
  }
}

/**
 * The work as one journaled `ctx.run`, raced against a durable timer (`orTimeout`) at the deadline
 * `attemptStep` set; whichever comes first is fed to `attemptStep`, which settles the attempt. A
 * timed-out attempt's signal is aborted; its result, if it comes, is journaled and never applied.
 */
async function timed(
  host: AttemptHost,
  label: string,
  context: Omit<NodeContext, 'signal'>,
): Promise<Outcome> {
  const { ctx } = host;
  const controller = new AbortController();
  let now = await ctx.date.now();
  let step = attemptStep(undefined, { type: 'start', timeoutMs: context.node.timeoutMs }, now);
  const attempt = ctx.run(label, async () => {
    try {
      const output = (await host.work({ ...context, signal: controller.signal })) as JsonValue | undefined;
      return { ok: true as const, output: output ?? null };
    } catch (error) {
      return { ok: false as const, message: error instanceof Error ? error.message : String(error) };
    }
  });
  for (;;) {
    let deadlineAt = now;
    for (const effect of step.effects) {
      if (effect.type === 'abort') controller.abort(new Error(effect.reason));
      else if (effect.type === 'settled') return toOutcome(effect.outcome);
      else if (effect.type === 'wait') deadlineAt = effect.deadlineAt;
      // `ignored` never comes: nothing is fed to a settled attempt here
    }
    let event: AttemptEvent;
    try {
      const ran = await attempt.orTimeout(Math.max(deadlineAt - now, 0));
      event = ran.ok ? { type: 'result', value: ran.output } : { type: 'error', message: ran.message };
    } catch (error) {
      if (!(error instanceof restate.TimeoutError)) throw error;
      event = { type: 'timer' };
    }
    now = await ctx.date.now();
    step = attemptStep(step.value, event, now);
  }
}

function toOutcome(outcome: AttemptOutcome): Outcome {
  if (outcome.kind === 'value') return { ok: true, output: outcome.value as JsonValue }; // the journaled JSON
  /* v8 ignore next -- nothing stops an attempt here: a workflow run is not aborted or closed */
  const kind = outcome.kind === 'stopped' ? 'error' : outcome.kind;
  return { ok: false, kind, message: outcome.message };
}

function outputsOf(records: Readonly<Record<string, NodeRecord>>): Record<string, JsonValue | undefined> {
  const outputs: Record<string, JsonValue | undefined> = {};
  for (const [id, record] of Object.entries(records))
    if (record.status === 'done') outputs[id] = record.output;
  return outputs;
}
