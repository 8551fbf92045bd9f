// The runs one pipeline runner drives: reserved by id, started or resumed from their header, driven
// to the end, and tracked until they settle so `close` can wait for them.
import type { Committed } from '@parley/core';
import { createHeader, readHeader } from './header.js';
import { drive } from './drive.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { recordTtlMs, type RunRecord } from '../records.js';
import type { RunResult, StartRunOptions } from '../runner-types.js';
import type { PipelineDefinition } from '../types.js';

/** @internal What one runner holds: its environment, its limits and the runs it drives now. */
export interface RunnerState {
  readonly env: RunnerEnv;
  readonly maxRuns: number;
  readonly maxParallel: number;
  readonly active: Map<string, { run: ActiveRun; done: Promise<RunResult>; waiters: Set<() => void> }>;
  /** The ids of the runs driven here, from their reservation until `begin` or a refusal ends. */
  readonly reserved: Set<string>;
  /** Every start and resume until it settles. */
  readonly calls: Set<Promise<RunResult>>;
  closed: boolean;
}

type Refusal = Extract<RunResult, { ok: false }>;

/** @internal A refusal of run `runId`, reported as a `refused` event. */
export function refuse(state: RunnerState, runId: string, code: Refusal['code'], message: string): RunResult {
  state.env.events.emit('refused', { runId, code, message });
  return { ok: false, runId, code, message };
}

/** Drives a run whose header is written (or read) until it ends. */
async function begin(
  state: RunnerState,
  definition: PipelineDefinition,
  runId: string,
  parent: string | undefined,
  header: Committed<RunRecord>,
  resumed: boolean,
): Promise<RunResult> {
  const { env, active } = state;
  const run: ActiveRun = {
    runId,
    definition,
    parent,
    header,
    input: header.value.input,
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
  if (state.closed) run.controller.abort('closed'); // closed while the run's header was being written
  const done = drive(env, run, waiters, state.maxParallel);
  active.set(runId, { run, done, waiters });
  if (env.events.listenerCount('run') > 0)
    env.events.emit('run', { runId, status: resumed ? 'resumed' : 'started' });
  try {
    return await done;
  } finally {
    run.controller.signal.removeEventListener('abort', stopAttempts);
    active.delete(runId);
    state.reserved.delete(runId);
  }
}

/** @internal The stored header of `runId` as committed, when it is a run of `definition`; else the refusal. */
export async function checkedHeader(
  state: RunnerState,
  definition: PipelineDefinition,
  runId: string,
): Promise<Committed<RunRecord> | RunResult> {
  const { env } = state;
  const read = await readHeader(env, runId);
  if (!read.ok) {
    env.events.emit('refused', { runId, code: read.code, message: read.message, key: read.key });
    return { ok: false, runId, code: read.code, message: read.message };
  }
  const header = read.header;
  if (header === undefined) return refuse(state, runId, 'unknown_run', `No run ${runId}`);
  if (header.value.digest !== definition.digest)
    return refuse(
      state,
      runId,
      'definition_mismatch',
      `Run ${runId} was started by another definition of ${header.value.name}`,
    );
  return header;
}

/** Refuses a run that cannot be driven now, or reserves its id until `begin` or a refusal. */
function guard(state: RunnerState, runId: string): RunResult | undefined {
  const { reserved, maxRuns } = state;
  if (state.closed) return refuse(state, runId, 'closed', 'The runner is closed');
  if (reserved.has(runId))
    return refuse(state, runId, 'already_running', `Run ${runId} is already being driven here`);
  if (reserved.size >= maxRuns)
    return refuse(state, runId, 'too_many_runs', `At most ${maxRuns} runs at once`);
  reserved.add(runId);
  return undefined;
}

/** @internal Keeps every start and resume until it settles, so `close` can wait for them. */
export function track(state: RunnerState, call: Promise<RunResult>): Promise<RunResult> {
  const { calls } = state;
  calls.add(call);
  void call.finally(() => calls.delete(call));
  return call;
}

/** @internal Writes the header of a new run and drives it. */
export async function start(
  state: RunnerState,
  definition: PipelineDefinition,
  { runId, parent, input }: StartRunOptions,
): Promise<RunResult> {
  const refused = guard(state, runId);
  if (refused !== undefined) return refused;
  const { env } = state;
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
  if (created === 'exists' || 'ok' in created) state.reserved.delete(runId);
  if (created === 'exists')
    return refuse(state, runId, 'run_exists', `Run ${runId} exists; resume it instead`);
  if ('ok' in created) {
    const code =
      created.code === 'corrupt_record' || created.code === 'record_version'
        ? 'corrupt_record'
        : 'store_failed';
    const message = code === 'corrupt_record' ? created.message : `The store failed: ${created.message}`;
    env.events.emit('refused', { runId, code, message, key: created.key });
    return { ok: false, runId, code, message };
  }
  return begin(state, definition, runId, parent, created, false);
}

/** @internal Reads the header of a stored run and drives it on. */
export async function resume(
  state: RunnerState,
  definition: PipelineDefinition,
  { runId, parent }: Omit<StartRunOptions, 'input'>,
): Promise<RunResult> {
  const refused = guard(state, runId);
  if (refused !== undefined) return refused;
  const header = await checkedHeader(state, definition, runId);
  if ('ok' in header) {
    state.reserved.delete(runId);
    return header;
  }
  return begin(state, definition, runId, parent, header, true);
}
