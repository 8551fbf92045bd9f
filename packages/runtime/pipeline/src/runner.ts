import {
  assertTtlMs,
  createEmitter,
  createKernel,
  createOwnerId,
  isConsentLedger,
  systemClock,
} from '@parley/core';
import { createHeader, readHeader } from './internal/header.js';
import { PipelineError } from './errors.js';
import { drive } from './internal/drive.js';
import { decideApproval } from './internal/decide.js';
import type { ActiveRun, RunnerEnv } from './internal/env.js';
import { readNode } from './internal/io.js';
import { type NodeRecord, recordTtlMs, type RunRecord } from './records.js';
import type {
  PipelineRunner,
  PipelineRunnerEvents,
  PipelineRunnerOptions,
  RunResult,
  StartRunOptions,
} from './runner-types.js';
import { sessionToolsAt } from './session-tools.js';
import type { PipelineDefinition } from './types.js';

const DEFAULT_TTL_MS = 7 * 24 * 60 * 60_000;

/**
 * Creates a pipeline runner: drives runs of a pipeline on the injected clock, keeping every node's
 * state in the `Store` (compare-and-set), so a restarted process resumes a run without re-running
 * finished nodes, and two runners on one store never run the same node twice at once.
 *
 * Use one per process. Independent nodes run in parallel (at most `maxParallelPerRun` per run),
 * `spawn` nodes take a slot in the topology per attempt (`spawnWhenFree`: depth, children and
 * concurrency limits, FIFO across runs), each attempt is bounded by the node's timeout, outputs are
 * checked against their artifact schema, failures follow the node's policies, review nodes go
 * through @parley/conflict's review gate and approval nodes wait for {@link PipelineRunner.decide}.
 *
 * @throws PipelineError `invalid_argument` for a missing store or work function or a limit out of range.
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore } from '@parley/core';
 * import { createPipelineRunner, definePipeline } from '@parley/pipeline';
 *
 * const pipeline = definePipeline({
 *   name: 'brief',
 *   nodes: [
 *     { id: 'draft', kind: 'task', agent: 'writer' },
 *     { id: 'review', kind: 'review', agent: 'editor', reviews: 'draft', dependsOn: ['draft'] },
 *   ],
 * });
 * const runner = createPipelineRunner({
 *   store: createMemoryStore(),
 *   clock: createManualClock(),
 *   work: (ctx) =>
 *     ctx.node.kind === 'review'
 *       ? ctx.outputs['draft'] === 'v2'
 *         ? { verdict: 'pass' }
 *         : { verdict: 'revise', issues: [{ description: 'Too short' }] }
 *       : ctx.revision === undefined ? 'v1' : 'v2',
 * });
 * const result = await runner.start(pipeline, { runId: 'r1' });
 * console.log(result.ok && result.status, result.ok && result.nodes['draft']?.output); // succeeded v2
 * ```
 */
export function createPipelineRunner(options: PipelineRunnerOptions): PipelineRunner {
  if (typeof options?.store?.compareAndSet !== 'function' || typeof options.work !== 'function')
    throw new PipelineError('invalid_argument', 'A pipeline runner needs a store and a work function');
  if (options.ledger !== undefined && !isConsentLedger(options.ledger))
    throw new PipelineError('invalid_argument', 'ledger must have an append function');
  const maxRuns = limit(options.maxRuns, 'maxRuns', 100);
  const maxParallel = limit(options.maxParallelPerRun, 'maxParallelPerRun', 8);
  const ttlMs = options.ttlMs === undefined ? DEFAULT_TTL_MS : checked(() => assertTtlMs(options.ttlMs));
  const runnerId = options.runnerId ?? createOwnerId('runner'); // unique: two processes are never one owner
  const clock = options.clock ?? systemClock;
  const env: RunnerEnv = {
    store: options.store,
    // graceMs 0: a header lives exactly as long as its stored deadline (the run's lifetime) says
    kernel: createKernel({ store: options.store, clock, owner: runnerId, graceMs: 0 }),
    clock,
    runnerId,
    prefix: options.keyPrefix ?? 'pipeline:',
    ttlMs,
    leaseGraceMs: options.leaseGraceMs ?? 60_000,
    events: createEmitter<PipelineRunnerEvents>(options),
    work: options.work,
    artifacts: options.artifacts,
    topology: options.topology,
    ledger: options.ledger,
    sessionTools:
      options.sessionTools ?? (({ depth, maxSpawnDepth }) => sessionToolsAt(depth, maxSpawnDepth)),
    spawnId: options.spawnId,
  };
  const active = new Map<string, { run: ActiveRun; done: Promise<RunResult>; waiters: Set<() => void> }>();
  let closed = false;

  const refuse = (
    runId: string,
    code: Extract<RunResult, { ok: false }>['code'],
    message: string,
  ): RunResult => {
    env.events.emit('refused', { runId, code, message });
    return { ok: false, runId, code, message };
  };

  async function begin(
    definition: PipelineDefinition,
    runId: string,
    parent: string | undefined,
    header: RunRecord,
    resumed: boolean,
  ): Promise<RunResult> {
    const run: ActiveRun = {
      runId,
      definition,
      parent,
      input: header.input,
      controller: new AbortController(),
      records: new Map(),
      committed: new Map(),
      leases: new Map(),
      blocked: new Map(),
      busy: new Set(),
      spawnTurn: Promise.resolve(),
      failure: undefined,
      ttlMs: recordTtlMs(definition, env.ttlMs, env.leaseGraceMs),
      wake: () => {},
      stops: new Set(),
    };
    const stopAttempts = (): void => {
      for (const stop of run.stops) stop();
    };
    run.controller.signal.addEventListener('abort', stopAttempts, { once: true });
    const waiters = new Set<() => void>();
    if (closed) run.controller.abort('closed'); // closed while the run's header was being written
    const done = drive(env, run, waiters, maxParallel);
    active.set(runId, { run, done, waiters });
    env.events.emit('run', { runId, status: resumed ? 'resumed' : 'started' });
    try {
      return await done;
    } finally {
      run.controller.signal.removeEventListener('abort', stopAttempts);
      active.delete(runId);
      reserved.delete(runId);
    }
  }

  async function checkedHeader(
    definition: PipelineDefinition,
    runId: string,
  ): Promise<RunRecord | RunResult> {
    const read = await readHeader(env, runId);
    if (!read.ok) {
      env.events.emit('refused', { runId, code: read.code, message: read.message, key: read.key });
      return { ok: false, runId, code: read.code, message: read.message };
    }
    const header = read.header;
    if (header === undefined) return refuse(runId, 'unknown_run', `No run ${runId}`);
    if (header.digest !== definition.digest)
      return refuse(
        runId,
        'definition_mismatch',
        `Run ${runId} was started by another definition of ${header.name}`,
      );
    return header;
  }

  const reserved = new Set<string>();
  /** Refuses a run that cannot be driven now, or reserves its id until `begin` or a refusal. */
  const guard = (runId: string): RunResult | undefined => {
    if (closed) return refuse(runId, 'closed', 'The runner is closed');
    if (reserved.has(runId))
      return refuse(runId, 'already_running', `Run ${runId} is already being driven here`);
    if (reserved.size >= maxRuns) return refuse(runId, 'too_many_runs', `At most ${maxRuns} runs at once`);
    reserved.add(runId);
    return undefined;
  };

  const calls = new Set<Promise<RunResult>>();
  /** Keeps every start and resume until it settles, so `close` can wait for them. */
  const track = (call: Promise<RunResult>): Promise<RunResult> => {
    calls.add(call);
    void call.finally(() => calls.delete(call));
    return call;
  };

  async function start(
    definition: PipelineDefinition,
    { runId, parent, input }: StartRunOptions,
  ): Promise<RunResult> {
    const refused = guard(runId);
    if (refused !== undefined) return refused;
    const header: RunRecord = {
      v: 1,
      name: definition.name,
      digest: definition.digest,
      status: 'running',
      createdAt: env.clock.now(),
      input,
    };
    const created = await createHeader(
      env,
      runId,
      header,
      recordTtlMs(definition, env.ttlMs, env.leaseGraceMs),
    );
    if (created !== 'created') reserved.delete(runId);
    if (created === 'exists') return refuse(runId, 'run_exists', `Run ${runId} exists; resume it instead`);
    if (created !== 'created') {
      const code =
        created.code === 'corrupt_record' || created.code === 'record_version'
          ? 'corrupt_record'
          : 'store_failed';
      const message = code === 'corrupt_record' ? created.message : `The store failed: ${created.message}`;
      env.events.emit('refused', { runId, code, message, key: created.key });
      return { ok: false, runId, code, message };
    }
    return begin(definition, runId, parent, header, false);
  }

  async function resume(
    definition: PipelineDefinition,
    { runId, parent }: Omit<StartRunOptions, 'input'>,
  ): Promise<RunResult> {
    const refused = guard(runId);
    if (refused !== undefined) return refused;
    const header = await checkedHeader(definition, runId);
    if ('ok' in header) {
      reserved.delete(runId);
      return header;
    }
    return begin(definition, runId, parent, header, true);
  }

  const api: PipelineRunner = {
    start: (definition, options) => track(start(definition, options)),
    resume: (definition, options) => track(resume(definition, options)),
    async decide(definition, runId, node, decision) {
      const header = await checkedHeader(definition, runId);
      if ('ok' in header) return header as Extract<RunResult, { ok: false }>;
      const result = await decideApproval(env, definition, runId, node, decision);
      if (!result.ok) env.events.emit('refused', { runId, code: result.code, message: result.message });
      active.get(runId)?.run.wake();
      return result;
    },
    async snapshot(definition, runId) {
      const read = await readHeader(env, runId);
      if (!read.ok || read.header === undefined) return undefined;
      const nodes: Record<string, NodeRecord> = {};
      for (const node of definition.nodes) {
        const record = await readNode(env, runId, node.id).catch(() => undefined); // corrupt: left out
        if (record !== undefined) nodes[node.id] = record;
      }
      return nodes;
    },
    active: () => [...reserved],
    on: (event, listener) => env.events.on(event, listener),
    async close() {
      closed = true;
      const runs = [...active.values()];
      for (const { run } of runs) run.controller.abort('closed'); // a no-op for a run already aborted
      for (const { run } of runs) run.wake();
      await Promise.all([...calls]);
    },
  };
  return api;
}

function limit(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new PipelineError('invalid_argument', `${name} must be a positive integer`);
  return value;
}

function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new PipelineError('invalid_argument', 'ttlMs must be a positive number of ms', { cause: error });
  }
}
