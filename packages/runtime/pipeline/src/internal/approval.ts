import type { ConsentFact, ConsentLedger } from '@parley/core';
import type { ApprovalNode } from '../types.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { appendFacts, decisionFact, requestFact } from './consent.js';
import { loadNode, writeNode } from './io.js';

/**
 * Holds an approval node in `waiting` until a decision is stored (by `decide`, here or in another
 * process) or its stored deadline passes, whichever the record says when it is read: the deadline
 * is checked against the clock at that moment, whatever the timers did. A waiting node runs no
 * work, so it holds no lease: every runner driving the run watches it, and whichever sees the
 * deadline pass first expires it (a step on the fresh record; the others' steps change nothing).
 */
export async function runApproval(
  env: RunnerEnv,
  run: ActiveRun,
  node: ApprovalNode & { readonly timeoutMs: number },
  waiters: Set<() => void>,
): Promise<void> {
  let record = run.records.get(node.id);
  if (record?.status === 'pending') {
    const deadlineAt = env.clock.now() + node.timeoutMs;
    const waiting = await writeNode(env, run, node.id, { type: 'wait', deadlineAt, lifeMs: run.ttlMs });
    if (waiting === undefined) return;
    record = waiting;
    // Best effort here: `decide` appends the request again (a duplicate) and refuses without it.
    if (env.ledger !== undefined)
      await recordFacts(env, env.ledger, run, [requestFact(run.definition, node.id)]);
    env.events.emit('approval', {
      runId: run.runId,
      node: node.id,
      channel: node.channel,
      deadlineAt: waiting.deadlineAt ?? deadlineAt,
    });
  }
  for (;;) {
    if (record?.status !== 'waiting' || run.controller.signal.aborted) return;
    const deadlineAt = record.deadlineAt ?? 0;
    if (env.clock.now() >= deadlineAt) {
      const expired = await writeNode(env, run, node.id, { type: 'expire', lifeMs: run.ttlMs });
      if (env.ledger !== undefined && expired !== undefined)
        // this runner expired it
        await recordFacts(env, env.ledger, run, [
          decisionFact(run.definition, node.id, 'timed_out', undefined),
        ]);
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = env.clock.setTimeout(() => wake(), deadlineAt - env.clock.now());
      const onAbort = (): void => wake();
      const wake = (): void => {
        env.clock.clearTimeout(timer);
        waiters.delete(wake);
        run.controller.signal.removeEventListener('abort', onAbort);
        resolve();
      };
      waiters.add(wake);
      run.controller.signal.addEventListener('abort', onAbort, { once: true });
    });
    record = await loadNode(env, run, node.id);
  }
}

/** Appends facts of a run's approval; a failure is reported as a `refused` event (`not_recorded`). */
async function recordFacts(
  env: RunnerEnv,
  ledger: ConsentLedger,
  run: ActiveRun,
  facts: readonly ConsentFact[],
): Promise<void> {
  const problem = await appendFacts(ledger, run.runId, facts);
  if (problem !== undefined)
    env.events.emit('refused', { runId: run.runId, code: 'not_recorded', message: problem });
}
