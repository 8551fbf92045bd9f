import {
  assertTtlMs,
  createEmitter,
  createKernel,
  createOwnerId,
  isConsentLedger,
  systemClock,
} from '@parley/core';
import { readHeader } from './internal/header.js';
import { PipelineError } from './errors.js';
import { decideApproval } from './internal/decide.js';
import type { RunnerEnv } from './internal/env.js';
import { readNode } from './internal/io.js';
import { checkedHeader, type RunnerState, resume, start, track } from './internal/runs.js';
import type { NodeRecord } from './records.js';
import type {
  PipelineRunner,
  PipelineRunnerEvents,
  PipelineRunnerOptions,
  RunResult,
} from './runner-types.js';
import { sessionToolsAt } from './session-tools.js';

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
  const state: RunnerState = {
    env: runnerEnv(options, ttlMs),
    maxRuns,
    maxParallel,
    active: new Map(),
    reserved: new Set(),
    calls: new Set(),
    closed: false,
  };
  const { env, active, reserved, calls } = state;

  const api: PipelineRunner = {
    start: (definition, options) => track(state, start(state, definition, options)),
    resume: (definition, options) => track(state, resume(state, definition, options)),
    async decide(definition, runId, node, decision) {
      const header = await checkedHeader(state, definition, runId);
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
      state.closed = true;
      const runs = [...active.values()];
      for (const { run } of runs) run.controller.abort('closed'); // a no-op for a run already aborted
      for (const { run } of runs) run.wake();
      await Promise.all([...calls]);
    },
  };
  return api;
}

/** The environment every run of the runner shares. */
function runnerEnv(options: PipelineRunnerOptions, ttlMs: number): RunnerEnv {
  const runnerId = options.runnerId ?? createOwnerId('runner'); // unique: two processes are never one owner
  const clock = options.clock ?? systemClock;
  return {
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
