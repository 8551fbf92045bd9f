// The small DAG scheduler: a step starts as soon as every step it depends on is done and its
// condition holds, so independent steps (bull and bear) run at the same time; a step whose
// dependency did not finish, or whose condition is false, is skipped. What a step does is the
// caller's `execute`; the topology decides how many runs may actually be alive at once.
import type { Pipeline, PipelineStep } from './pipeline.js';

export type StepStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'escalated';

/** What `execute` reports for one step. */
export interface StepResult {
  readonly status: 'done' | 'failed' | 'escalated';
  /** Fields a later step's condition may read (`review.verdict`). */
  readonly output?: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

export interface StepRecord {
  readonly status: StepStatus;
  readonly output?: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

/** Runs the steps of a checked pipeline; resolves with every step's final record. */
export async function runDag(
  pipeline: Pipeline,
  execute: (step: PipelineStep) => Promise<StepResult>,
  log: (text: string) => void,
): Promise<Readonly<Record<string, StepRecord>>> {
  const records = new Map<string, StepRecord>(pipeline.steps.map((step) => [step.id, { status: 'pending' }]));
  const running = new Map<string, Promise<void>>();
  const status = (id: string): StepStatus => (records.get(id) as StepRecord).status;

  const start = (step: PipelineStep): void => {
    records.set(step.id, { status: 'running' });
    const done = execute(step).then(
      (result) => records.set(step.id, result),
      (error: unknown) => records.set(step.id, { status: 'failed', reason: String(error) }),
    );
    running.set(
      step.id,
      done.then(() => {
        running.delete(step.id);
      }),
    );
  };

  for (;;) {
    let changed = true;
    while (changed) {
      changed = false;
      for (const step of pipeline.steps) {
        if (status(step.id) !== 'pending') continue;
        const blocked = step.depends_on.find((dep) => !['pending', 'running', 'done'].includes(status(dep)));
        if (blocked !== undefined) {
          records.set(step.id, { status: 'skipped', reason: `${blocked} ${status(blocked)}` });
          log(`  ⤼ [${step.id}] skipped: ${blocked} ${status(blocked)}`);
          changed = true;
        } else if (step.depends_on.every((dep) => status(dep) === 'done')) {
          const condition = step.condition;
          if (condition !== undefined) {
            const actual = records.get(condition.step)?.output?.[condition.field];
            const holds = (String(actual) === condition.value) === (condition.op === '==');
            log(
              `  ? [${step.id}] condition ${condition.source}: ${holds} (${condition.field} = ${String(actual)})`,
            );
            if (!holds) {
              records.set(step.id, { status: 'skipped', reason: `condition ${condition.source} is false` });
              changed = true;
              continue;
            }
          }
          start(step);
          changed = true;
        }
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  return Object.fromEntries(records);
}
