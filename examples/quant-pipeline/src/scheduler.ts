// The DAG scheduler, on @parley/pipeline's pure `planRun`: a step starts as soon as every step
// it depends on is done and its condition holds, so independent steps (bull and bear) run at the
// same time; a step whose dependency did not finish, or whose condition is false, is skipped.
// What a step does is the caller's `execute`; the topology decides how many runs are alive.
import type { JsonValue } from '@parley/core';
import { type NodeRecord, type NodeStatus, planRun } from '@parley/pipeline';
import type { Pipeline, PipelineStep } from './pipeline.js';

/** What `execute` reports for one step. */
export interface StepResult {
  readonly status: 'done' | 'failed' | 'escalated';
  /** Fields a later step's condition may read (`review.verdict`). */
  readonly output?: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

export interface StepRecord {
  readonly status: NodeStatus;
  readonly output?: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

/** Runs the steps of a checked pipeline; resolves with every step's final record. */
export async function runDag(
  pipeline: Pipeline,
  execute: (step: PipelineStep) => Promise<StepResult>,
  log: (text: string) => void,
): Promise<Readonly<Record<string, StepRecord>>> {
  const records: Record<string, NodeRecord> = {};
  const record = (status: NodeStatus, extra: Partial<NodeRecord> = {}): NodeRecord => ({
    v: 1,
    status,
    attempts: 0,
    spawns: 0,
    revision: 0,
    failures: {},
    ...extra,
  });
  const running = new Set<Promise<void>>();
  for (;;) {
    const plan = planRun(pipeline, records);
    for (const { id, reason } of plan.skip) {
      records[id] = record('skipped', { reason });
      if (!reason.startsWith('condition')) log(`  ⤼ [${id}] skipped: ${reason}`);
      else log(`  ? [${id}] ${reason.replace(/ is false \((.*)\)$/, ': false ($1)')}`);
    }
    for (const id of plan.start) {
      const step = pipeline.nodes.find((node) => node.id === id) as PipelineStep;
      const c = step.condition;
      if (c !== undefined) {
        const actual = records[c.node]?.output as Record<string, unknown> | undefined;
        log(
          `  ? [${id}] condition ${c.node}.${c.field} ${c.op} "${c.value}": true (${c.field} = ${String(actual?.[c.field])})`,
        );
      }
      records[id] = record('running');
      const done: Promise<void> = execute(step)
        .catch((error: unknown): StepResult => ({ status: 'failed', reason: String(error) }))
        .then((result) => {
          // Outputs are the JSON reports the codec checked.
          const output = result.output as JsonValue | undefined;
          records[id] = record(result.status, { output, reason: result.reason });
          running.delete(done);
        });
      running.add(done);
    }
    if (plan.skip.length > 0) continue;
    if (running.size === 0) break;
    await Promise.race(running);
  }
  return Object.fromEntries(
    Object.entries(records).map(([id, r]) => [
      id,
      {
        status: r.status,
        ...(r.output === undefined ? {} : { output: r.output as Record<string, unknown> }),
        ...(r.reason === undefined ? {} : { reason: r.reason }),
      },
    ]),
  );
}
