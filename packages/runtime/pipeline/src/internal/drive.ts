import type { TimerHandle } from '@parley/core';
import { planRun } from '../plan.js';
import type { NodeRecord, RunStatus } from '../records.js';
import { finishHeader } from './header.js';
import type { RunResult } from '../runner-types.js';
import type { PipelineDefinition } from '../types.js';
import { runApproval } from './approval.js';
import { runWork } from './attempt.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { CorruptRecord, loadNode, writeNode } from './io.js';
import { holdLease, releaseLease } from './lease.js';
import type { NodeEvent } from '../node-step.js';
import { type ReviewOutcome, runReview } from './review.js';

type Node = PipelineDefinition['nodes'][number];

/** The options of a write that ends a node and gives its lease back. */
const RELEASE = { release: true } as const;

/** A task's place in `inflight` before its own promise exists. */
const SETTLED: Promise<void> = Promise.resolve();
const NONE: ReadonlySet<string> = new Set();

/**
 * Drives one run to its end: each tick reads the records, applies the pure plan (skips, starts,
 * take-overs of nodes whose owner stopped), then sleeps until a node settles, a decision or another
 * runner's write arrives, or a foreign lease runs out.
 */
export async function drive(
  env: RunnerEnv,
  run: ActiveRun,
  waiters: Set<() => void>,
  maxParallel: number,
): Promise<RunResult> {
  const { runId, definition } = run;
  const nodes = definition.nodes; // frozen: indexed loops, as for-of over a frozen array allocates
  const inflight = new Map<string, Promise<void>>();
  let woken = false;
  let resolveSleep: (() => void) | undefined;
  const wakeWaiters = (): void => {
    if (waiters.size > 0) for (const wake of [...waiters]) wake();
  };
  run.wake = () => {
    woken = true;
    resolveSleep?.();
    wakeWaiters();
  };
  let leaseTimer: TimerHandle | undefined;
  const prefix = `${env.prefix}node:${runId}:`;
  // What each tick must read again: every node while nothing tells this run what changed (no watch,
  // the first tick, after a foreign lease ran out), else the nodes whose watched change it has not
  // seen. A node this run is working on is read by its own task (its writes start from a fresh
  // read or fail their compare-and-set), and again once it settles if a change is still unseen.
  let readAll = true;
  const changed = new Map<string, number | null>(); // node id → version of its latest change (null: unknown)
  const unwatch = env.store.watch?.(
    prefix,
    (change) => {
      const id = change.key.slice(prefix.length);
      changed.set(id, change.version);
      // A node whose task is in flight here wakes the loop itself, once its write is kept or its
      // task settles; a waiting approval hears every change.
      if (inflight.has(id)) wakeWaiters();
      else run.wake();
    },
    {
      // The watch may have missed changes before now: every node read before this is read again,
      // unless a change heard since (its version at or below what this run holds) says it is current.
      onResync: () => {
        for (let i = 0; i < nodes.length; i++) changed.set((nodes[i] as Node).id, null);
        run.wake();
      },
    },
  );
  /** Whether the watch reported a change of the node newer than the record this run holds. */
  const unheard = (id: string): boolean => {
    const version = changed.get(id);
    return (
      version !== undefined && (version === null || version > (run.committed.get(id)?.storeVersion ?? -1))
    );
  };
  const stale = (id: string): boolean => {
    if (readAll || unwatch === undefined) return true;
    const news = unheard(id);
    changed.delete(id);
    return news;
  };
  let planned: Record<string, NodeRecord> | undefined; // the records the last complete tick planned on
  /** Runs a node's task, in flight from before its first write (which the watch reports at once). */
  const launch = (id: string, task: () => Promise<void>): void => {
    inflight.set(id, SETTLED);
    inflight.set(id, guarded(id, task));
  };
  const guarded = async (id: string, task: () => Promise<void>): Promise<void> => {
    try {
      await task();
    } catch (error) {
      run.failure ??= error;
    } finally {
      inflight.delete(id);
      // The loop plans again unless its last plan already saw the node as it ended, no change
      // it has not seen came while the task ran, and nothing else waits for the task to end: the
      // run's end, a free slot, a failure, an abort.
      const seen = planned !== undefined && planned[id] === run.records.get(id) && !unheard(id);
      const waiting = inflight.size === 0 || inflight.size === maxParallel - 1;
      if (!seen || waiting || run.failure !== undefined || run.controller.signal.aborted) run.wake();
    }
  };
  try {
    for (;;) {
      woken = false;
      if (run.failure !== undefined || run.controller.signal.reason === 'closed') break;
      const all = readAll;
      readAll = false;
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i] as Node;
        if (run.busy.has(node.id) || inflight.has(node.id) || !(all || stale(node.id))) continue;
        changed.delete(node.id);
        await loadNode(env, run, node.id);
      }
      const records: Record<string, NodeRecord> = {};
      for (let i = 0; i < nodes.length; i++) {
        const id = (nodes[i] as Node).id;
        const record = run.records.get(id);
        if (record !== undefined) records[id] = record;
      }
      const plan = planRun(definition, records);
      const starts = plan.start.length === 0 ? NONE : new Set(plan.start);
      for (const { id, reason } of plan.skip) {
        await writeNode(env, run, id, { type: 'skip', reason, lifeMs: run.ttlMs });
      }
      if (plan.skip.length > 0) continue;
      if (plan.finished && inflight.size === 0) return await finish(env, run, plan.status ?? 'succeeded');
      const now = env.clock.now();
      let nextLease = Number.POSITIVE_INFINITY;
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i] as Node;
        if (inflight.has(node.id) || run.busy.has(node.id) || inflight.size >= maxParallel) continue;
        const record = records[node.id] as NodeRecord;
        // A node a running review re-runs is that review's: whoever drives the review re-runs it.
        const reviewing = record.revisedFor?.review;
        const underReview = reviewing !== undefined && records[reviewing]?.status === 'running';
        // A waiting approval holds no lease: every runner driving the run watches it.
        if (record.status === 'waiting' && node.kind === 'approval') {
          launch(node.id, () => runApproval(env, run, node, waiters));
          continue;
        }
        if (record.status === 'running' && underReview) continue;
        // Another runner's valid lease (a runner restarted under its own id takes its leases back).
        const foreign =
          record.owner !== undefined && record.owner !== env.runnerId ? (record.leaseUntil ?? 0) : 0;
        const leasedUntil = Math.max(foreign, run.blocked.get(node.id) ?? 0);
        if (now < leasedUntil) {
          nextLease = Math.min(nextLease, leasedUntil);
          continue;
        }
        if (!starts.has(node.id) && record.status !== 'running') continue;
        // A pending node to start, or a running one whose owner's lease ran out without a result.
        if (node.kind === 'approval') launch(node.id, () => runApproval(env, run, node, waiters));
        else if (record.status === 'running' && node.onUnknown === 'report')
          launch(node.id, () => reportUnknown(env, run, node.id, record.owner ?? 'another runner'));
        else launch(node.id, () => settleWork(env, run, node));
      }
      planned = records;
      env.clock.clearTimeout(leaseTimer);
      if (Number.isFinite(nextLease))
        leaseTimer = env.clock.setTimeout(
          () => {
            readAll = true; // a lease ran out: what its holder did or did not write is read afresh
            run.wake();
          },
          Math.max(nextLease - now, 0),
        );
      if (!woken) await new Promise<void>((resolve) => (resolveSleep = resolve));
      resolveSleep = undefined;
    }
  } catch (error) {
    run.failure ??= error;
  } finally {
    env.clock.clearTimeout(leaseTimer);
    unwatch?.();
  }
  run.controller.abort('closed'); // a no-op when the run was aborted or closed already
  await Promise.all(inflight.values());
  const failure = run.failure;
  if (failure instanceof CorruptRecord) {
    env.events.emit('refused', {
      runId,
      code: 'corrupt_record',
      message: failure.message,
      key: failure.key,
    });
    return { ok: false, runId, code: 'corrupt_record', message: failure.message };
  }
  if (failure !== undefined) {
    const message = `The store failed: ${failure instanceof Error ? failure.message : String(failure)}`;
    env.events.emit('refused', { runId, code: 'store_failed', message });
    return { ok: false, runId, code: 'store_failed', message };
  }
  return { ok: false, runId, code: 'closed', message: 'The runner closed before the run ended' };
}

/**
 * Ends a running node whose owner's lease ran out without a result, and whose work must not run
 * twice (`onUnknown: 'report'`): it fails with `unknown_outcome`, under this runner's lease.
 */
async function reportUnknown(env: RunnerEnv, run: ActiveRun, id: string, owner: string): Promise<void> {
  if (!(await holdLease(env, run, id, env.leaseGraceMs + 1))) return;
  const event = { type: 'unknown', owner, lifeMs: run.ttlMs } as const;
  if ((await writeNode(env, run, id, event, { release: true })) === undefined)
    await releaseLease(env, run, id);
}

/** Runs a task or review node and stores how it ended, giving its lease back in the same write. */
async function settleWork(
  env: RunnerEnv,
  run: ActiveRun,
  node: PipelineDefinition['nodes'][number],
): Promise<void> {
  if (node.kind === 'approval') return;
  const outcome: ReviewOutcome =
    node.kind === 'review' ? await runReview(env, run, node) : await runWork(env, run, node);
  if (outcome.ok) {
    const done = { type: 'end', lifeMs: run.ttlMs, status: 'done', output: outcome.output } as const;
    await writeNode(env, run, node.id, done, RELEASE);
    return;
  }
  const record = run.records.get(node.id) as NodeRecord;
  const end = (event: Omit<Extract<NodeEvent, { type: 'end' }>, 'type' | 'lifeMs'>) =>
    writeNode(env, run, node.id, { type: 'end', lifeMs: run.ttlMs, ...event }, RELEASE);
  if (outcome.kind === 'stopped') {
    if (run.controller.signal.reason === 'aborted' && record.status === 'running' && run.leases.has(node.id))
      await end({ status: 'skipped', reason: 'run aborted', code: record.code });
  } else if (outcome.kind === 'escalated') {
    await end({
      status: 'escalated',
      code: outcome.code,
      reason: outcome.message,
      output: outcome.output,
      escalateTo: outcome.escalateTo,
    });
  } else if (outcome.after === 'abort') {
    const stored = await end({ status: 'failed', code: outcome.kind, reason: outcome.message, abort: true });
    if (stored !== undefined) run.controller.abort('aborted');
  } else {
    const status = outcome.after === 'skip' ? 'skipped' : 'escalated';
    await end({ status, code: outcome.kind, reason: outcome.message });
  }
}

/** Stores the run's final status in its header (once, whoever finishes first) and reports it. */
async function finish(env: RunnerEnv, run: ActiveRun, status: RunStatus): Promise<RunResult> {
  await finishHeader(env, run.header, status, run.ttlMs);
  if (env.events.listenerCount('run') > 0) env.events.emit('run', { runId: run.runId, status });
  const nodes: Record<string, NodeRecord> = {};
  const defined = run.definition.nodes;
  for (let i = 0; i < defined.length; i++) {
    const id = (defined[i] as Node).id;
    nodes[id] = run.records.get(id) as NodeRecord;
  }
  return { ok: true, runId: run.runId, status, nodes };
}
