import type { ApprovalNode } from '../types.js';
import type { NodeRecord } from '../records.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { loadNode, writeNode } from './io.js';

/**
 * Holds an approval node in `waiting` until a decision is stored (by `decide`, here or in another
 * process) or its stored deadline passes, whichever the record says when it is read: the deadline
 * is checked against the clock at that moment, whatever the timers did.
 */
export async function runApproval(
  env: RunnerEnv,
  run: ActiveRun,
  node: ApprovalNode & { readonly timeoutMs: number },
  waiters: Set<() => void>,
): Promise<void> {
  let record = run.records.get(node.id)?.value as NodeRecord;
  if (record.status === 'pending') {
    const now = env.clock.now();
    const deadlineAt = now + node.timeoutMs;
    const waiting = await writeNode(env, run, node.id, {
      ...record,
      status: 'waiting',
      attempts: record.attempts + 1,
      owner: env.runnerId,
      startedAt: now,
      deadlineAt,
      leaseUntil: deadlineAt,
    });
    if (waiting === undefined) return;
    record = waiting;
    env.events.emit('approval', { runId: run.runId, node: node.id, channel: node.channel, deadlineAt });
  }
  for (;;) {
    if (record.status !== 'waiting' || run.controller.signal.aborted) return;
    const deadlineAt = record.deadlineAt ?? 0;
    if (env.clock.now() >= deadlineAt) {
      await writeNode(env, run, node.id, {
        ...record,
        status: 'failed',
        code: 'expired',
        reason: `no decision by ${new Date(deadlineAt).toISOString()}`,
        endedAt: env.clock.now(),
        owner: undefined,
        leaseUntil: undefined,
      });
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
    record = (await loadNode(env, run, node.id)).value;
  }
}
