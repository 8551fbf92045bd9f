import type { JsonValue, TimerHandle } from '@parley/core';
import { type AttemptEvent, type AttemptOutcome, type AttemptState, attemptStep } from '../attempt-step.js';
import { type AttemptSpawn, attemptSpawn, type SpawnVerdict, spawnVerdict } from '../spawn-step.js';
import type { NodeRecord } from '../records.js';
import type { RetryContext } from '../retry-context.js';
import type { NodeContext } from '../runner-types.js';
import { afterFailure } from '../failure-policy.js';
import type { FailureKind } from '../types.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { outputsOf, writeNode } from './io.js';
import { startAfterLease, startUnderLease } from './lease.js';
import { lazyAbort } from './lazy-abort.js';
import { checkOutput, clarify } from './output.js';

type WorkNode = NodeContext['node'];

/** How a node's work ended after its retries: an output, a failure with what to do, or stopped. */
export type WorkOutcome =
  | { readonly ok: true; readonly output: JsonValue }
  | {
      readonly ok: false;
      readonly kind: FailureKind;
      readonly after: 'skip' | 'escalate' | 'abort';
      readonly message: string;
    }
  /** The run was aborted or closed, or another runner took the node: nothing more to write. */
  | { readonly ok: false; readonly kind: 'stopped' };

/** What a caller adds to a node's work: a revise request, other outputs, a lease to keep. */
type WorkExtra = Pick<NodeContext, 'revision'> & {
  readonly outputs?: NodeContext['outputs'];
  /** The stored revise request this run answers (a review re-running its target). */
  readonly revisedFor?: NodeRecord['revisedFor'];
  /**
   * Called before each attempt with its timeout: a review re-running its target keeps its own
   * lease for as long as the attempt may take (`false`: another runner took it, stop).
   */
  readonly renew?: (timeoutMs: number) => Promise<boolean>;
};

type Settled = AttemptOutcome | { readonly kind: 'refused'; readonly message: string };

/**
 * Runs a task or review node's work until it succeeds or its failure policy gives up: one attempt
 * per loop, each stored before it starts, spawned in the topology when the node spawns, bounded
 * by the node's timeout, its output checked against the node's artifact schema.
 */
export async function runWork(
  env: RunnerEnv,
  run: ActiveRun,
  node: WorkNode,
  extra: WorkExtra = {},
): Promise<WorkOutcome> {
  run.busy.add(node.id);
  try {
    return await work(env, run, node, extra);
  } finally {
    run.busy.delete(node.id);
  }
}

async function work(env: RunnerEnv, run: ActiveRun, node: WorkNode, extra: WorkExtra): Promise<WorkOutcome> {
  // A node taken over while it was being retried repeats the stored failure's context.
  const stored = run.records.get(node.id);
  let retry = stored?.status === 'running' ? stored.retry : undefined;
  for (;;) {
    if (extra.renew !== undefined && !(await extra.renew(node.timeoutMs)))
      return { ok: false, kind: 'stopped' };
    if (run.controller.signal.aborted) return { ok: false, kind: 'stopped' };
    // Each attempt runs under this runner's lease on the node, long enough for the attempt.
    const leaseMs = node.timeoutMs + env.leaseGraceMs;
    const begun = await begin(env, run, node, leaseMs, extra.revisedFor);
    if (begun === undefined) return { ok: false, kind: 'stopped' };
    const { started, ask } = begun;
    const spawnId = ask?.id;
    const spawned = ask === undefined ? undefined : await spawnRun(env, run, ask);
    const settled: Settled | undefined =
      spawned === undefined || spawned.ok ? undefined : { kind: spawned.kind, message: spawned.message };
    const depth = spawned === undefined ? agentDepth(env, run) : spawned.ok ? spawned.depth : undefined;
    const result =
      settled ??
      (await attempt(env, run, {
        runId: run.runId,
        node,
        attempt: started.attempts,
        spawnId,
        input: run.input,
        outputs: extra.outputs ?? outputsOf(run),
        retry,
        revision: extra.revision,
        tools: depth === undefined ? undefined : toolsAt(env, node, depth),
      }));
    if (spawnId !== undefined) env.topology?.finish(spawnId);
    if (result.kind === 'stopped') return { ok: false, kind: 'stopped' };
    let failure: { kind: FailureKind; message: string; missingFields?: readonly string[] };
    let clarification: RetryContext['clarification'];
    if (result.kind === 'value') {
      const checked = checkOutput(env, node, result.value);
      if (checked.ok) return { ok: true, output: checked.value };
      failure = { kind: 'invalid_output', message: checked.message, missingFields: checked.missingFields };
      clarification = clarify(node, checked);
    } else failure = { kind: result.kind, message: result.message };
    const next = afterFailure(node, started.failures, failure.kind);
    env.events.emit('failure', {
      runId: run.runId,
      node: node.id,
      attempt: started.attempts,
      ...failure,
      next,
    });
    const kept = await writeNode(
      env,
      run,
      node.id,
      {
        type: 'fail',
        kind: failure.kind,
        message: failure.message,
        retry:
          next === 'retry'
            ? { ...failure, ...(clarification === undefined ? {} : { clarification }) }
            : undefined,
        lifeMs: run.ttlMs,
      },
      { quiet: true },
    );
    if (kept === undefined) return { ok: false, kind: 'stopped' };
    if (next !== 'retry') return { ok: false, kind: failure.kind, after: next, message: failure.message };
    retry = kept.retry;
  }
}

/** The depth of the agent a `self` node runs as (the run's parent), when the topology knows it. */
function agentDepth(env: RunnerEnv, run: ActiveRun): number | undefined {
  return env.topology?.agent(run.parent ?? run.definition.owner ?? '')?.depth;
}

/** The session tools the node's agent at `depth` may use. */
function toolsAt(env: RunnerEnv, node: WorkNode, depth: number): NodeContext['tools'] {
  const maxSpawnDepth = (env.topology as NonNullable<RunnerEnv['topology']>).limits.maxSpawnDepth;
  return env.sessionTools({ depth, maxSpawnDepth, node: node.id, agent: node.agent });
}

/**
 * Takes the slot `ask` names in the spawn tree (waiting for one): the spawned agent's depth, or a
 * refusal as this attempt's failure, as `spawnVerdict` reads the topology's answer.
 */
async function spawnRun(env: RunnerEnv, run: ActiveRun, ask: AttemptSpawn): Promise<SpawnVerdict> {
  const topology = env.topology as NonNullable<RunnerEnv['topology']>;
  // One request of this run in the topology's queue at a time: runs side by side alternate.
  const request = run.spawnTurn.then(() =>
    topology.spawnWhenFree(
      { parent: ask.parent, id: ask.id, role: ask.role },
      { signal: run.controller.signal },
    ),
  );
  run.spawnTurn = request.catch(() => undefined);
  try {
    return spawnVerdict(await request);
  } catch (thrown) {
    return spawnVerdict({ thrown });
  }
}

/**
 * One call of the work, settled once by its result, its timeout or the run's abort, as the pure
 * `attemptStep` decides on this runner's clock.
 */
function attempt(env: RunnerEnv, run: ActiveRun, context: Omit<NodeContext, 'signal'>): Promise<Settled> {
  return new Promise((resolve) => {
    const controller = lazyAbort();
    let state: AttemptState | undefined;
    let timer: TimerHandle | undefined;
    // The deadline's timer is set once the work is pending: work that answers at once (or throws)
    // settles the attempt in the same microtask, with no timer to set and clear.
    let waitUntil: number | undefined;
    let pending = false;
    const arm = (deadlineAt: number): void => {
      env.clock.clearTimeout(timer);
      const ms = Math.max(deadlineAt - env.clock.now(), 0);
      timer = env.clock.setTimeout(() => feed({ type: 'timer' }), ms);
    };
    const onAbort = (): void => feed({ type: 'stop', message: 'run stopped' });
    const feed = (event: AttemptEvent): void => {
      const step = attemptStep(state, event, env.clock.now());
      state = step.value;
      for (const effect of step.effects) {
        if (effect.type === 'wait') {
          waitUntil = effect.deadlineAt;
          if (pending) arm(waitUntil);
        } else if (effect.type === 'ignored') {
          env.events.emit('ignored', { runId: run.runId, node: context.node.id, code: effect.code });
        } else if (effect.type === 'abort') controller.abort(new Error(effect.reason));
        else {
          env.clock.clearTimeout(timer);
          run.stops.delete(onAbort);
          resolve(effect.outcome);
        }
      }
    };
    run.stops.add(onAbort);
    feed({ type: 'start', timeoutMs: context.node.timeoutMs });
    // Field by field, in the context's order, with the signal made when read: V8 spreads slowly.
    const withSignal: NodeContext = {
      runId: context.runId,
      node: context.node,
      attempt: context.attempt,
      spawnId: context.spawnId,
      input: context.input,
      outputs: context.outputs,
      retry: context.retry,
      revision: context.revision,
      tools: context.tools,
      get signal() {
        return controller.signal;
      },
    };
    const failed = (error: unknown): void =>
      feed({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    // The work runs in a microtask, after this attempt is set up; a value it returns at once
    // settles the attempt without a promise of its own.
    queueMicrotask(() => {
      let value: unknown;
      try {
        value = env.work(withSignal);
        if (typeof (value as PromiseLike<unknown> | null)?.then === 'function') {
          pending = true;
          if (state?.outcome === undefined && waitUntil !== undefined) arm(waitUntil);
          Promise.resolve(value).then((result) => feed({ type: 'result', value: result }), failed);
          return;
        }
      } catch (error) {
        failed(error); // thrown by the work, or by a `then` getter of what it returned
        return;
      }
      feed({ type: 'result', value });
    });
  });
}

/**
 * Takes the node's lease and stores the attempt's start under it: in one write where no spawn is
 * asked (no topology), else the lease first and the start after, its spawn counted on the record
 * the lease was taken on. `undefined` when the node is not this attempt's to start.
 */
async function begin(
  env: RunnerEnv,
  run: ActiveRun,
  node: WorkNode,
  leaseMs: number,
  revisedFor: WorkExtra['revisedFor'],
): Promise<{ readonly started: NodeRecord; readonly ask: AttemptSpawn | undefined } | undefined> {
  const lifeMs = run.ttlMs;
  if (env.topology === undefined) {
    const start = { type: 'start', spawnId: undefined, spawned: false, revisedFor, lifeMs } as const;
    const started = await startUnderLease(env, run, node.id, leaseMs, start);
    return started === undefined ? undefined : { started, ask: undefined };
  }
  let ask: AttemptSpawn | undefined;
  const started = await startAfterLease(env, run, node.id, leaseMs, (record) => {
    ask = attemptSpawn({
      runId: run.runId,
      node,
      spawns: record.spawns,
      parent: run.parent ?? run.definition.owner,
      spawnId: env.spawnId,
    });
    if (record.spawnId !== undefined) env.topology?.finish(record.spawnId); // a run left by a crash
    return { type: 'start', spawnId: ask?.id, spawned: ask !== undefined, revisedFor, lifeMs };
  });
  return started === undefined ? undefined : { started, ask };
}
