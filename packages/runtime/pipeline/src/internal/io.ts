import { type Committed as Stored, isParleyError, type KernelRefusal, type Lease } from '@parley/core';
import { NODE_RECORD, nodeKey, type NodeRecord, nodeView } from '../records.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { type NodeEffect, type NodeEvent, nodeStep, PENDING } from '../node-step.js';

/** Thrown inside a run when a stored record fails its check; the drive loop reports it. */
export class CorruptRecord extends Error {
  constructor(
    readonly key: string,
    detail?: string,
  ) {
    super(`The stored record ${key} is corrupt${detail === undefined ? '' : ` (${detail})`}`);
  }
}

/** The error a kernel refusal other than a lease's or a stale step's is inside a run. */
export function thrown(refusal: KernelRefusal): Error {
  if (refusal.code === 'corrupt_record' || refusal.code === 'record_version')
    return new CorruptRecord(refusal.key, refusal.message);
  return new Error(refusal.message);
}

/** Reads a node's committed record (a fresh read through the kernel), with its lease filled in. */
export async function readNode(env: RunnerEnv, runId: string, node: string): Promise<NodeRecord> {
  return (await readStored(env, runId, node)).record;
}

/** A node's record as read, and as committed (none when nothing is stored). */
async function readStored(
  env: RunnerEnv,
  runId: string,
  node: string,
): Promise<{ readonly record: NodeRecord; readonly stored: Stored<NodeRecord> | undefined }> {
  const key = nodeKey(env.prefix, runId, node);
  try {
    const stored = await env.kernel.read(key, NODE_RECORD);
    return { record: nodeView(stored, PENDING), stored };
  } catch (error) {
    if (isParleyError(error, 'corrupt_record', 'record_version'))
      throw new CorruptRecord(key, error instanceof Error ? error.message : undefined);
    throw error;
  }
}

/** Reads a node's record from the store into the run's cache. */
export async function loadNode(env: RunnerEnv, run: ActiveRun, node: string): Promise<NodeRecord> {
  const { record, stored } = await readStored(env, run.runId, node);
  keep(run, node, record, stored);
  return record;
}

/**
 * Keeps a node's record in the run's cache as it was read or committed, so a watched change at or
 * below its version needs no read and the next write starts from it (`undefined`: unknown, read
 * on the next change and by the next write).
 */
export function keep(
  run: ActiveRun,
  node: string,
  record: NodeRecord,
  stored: Stored<NodeRecord> | undefined,
): void {
  run.records.set(node, record);
  if (stored === undefined) run.committed.delete(node);
  else run.committed.set(node, stored);
}

/** A node step committed: the record as stored, or why nothing was written. */
export type Committed =
  | {
      readonly ok: true;
      readonly record: NodeRecord;
      readonly effects: readonly NodeEffect[];
      /** The record as written (or, when the step changed nothing, as read), with its version. */
      readonly stored: Stored<NodeRecord> | undefined;
    }
  | { readonly ok: false; readonly code: 'stale'; readonly status: NodeRecord['status'] }
  | { readonly ok: false; readonly code: 'lease_lost' | 'lease_held' };

/** Options of {@link commitNode}. */
interface CommitOptions {
  readonly lease?: Lease | undefined;
  readonly release?: boolean | undefined;
  readonly quiet?: boolean | undefined;
  /** The record as last committed, standing for the write's first read (a changed record is read). */
  readonly basis?: Stored<NodeRecord> | undefined;
}

/**
 * Runs the node's step for `event` on its fresh record through the kernel (one compare-and-set),
 * fenced by `lease` when given (and ending it with `release`), and emits the `node` transition.
 * @throws CorruptRecord for a record this version does not read; an Error when the store fails.
 */
export async function commitNode(
  env: RunnerEnv,
  runId: string,
  node: string,
  event: NodeEvent,
  options: CommitOptions = {},
): Promise<Committed> {
  const done = await applyNode(env, nodeKey(env.prefix, runId, node), event, options);
  return committed(env, runId, node, done, options.quiet);
}

/** What a node step's kernel result means for the run, with its `node` event emitted. */
export function committed(
  env: RunnerEnv,
  runId: string,
  node: string,
  done: Awaited<ReturnType<typeof applyNode>>,
  quiet: boolean | undefined,
): Committed {
  if (!done.ok) {
    if (done.code === 'lease_lost' || done.code === 'lease_held') return { ok: false, code: done.code };
    throw thrown(done);
  }
  const record = nodeView(done.committed, PENDING);
  const moved = done.effects[0];
  if (moved?.type === 'stale') return { ok: false, code: 'stale', status: moved.status };
  if (
    moved?.type === 'moved' &&
    quiet !== true &&
    (moved.from !== record.status || moved.fromRevision !== record.revision) &&
    env.events.listenerCount('node') > 0
  ) {
    env.events.emit('node', {
      runId,
      node,
      previous: moved.from,
      status: record.status,
      attempt: record.attempts,
      revision: record.revision,
      spawnId: record.spawnId,
      code: record.code,
      reason: record.reason,
      escalateTo: record.escalateTo,
    });
  }
  return { ok: true, record, effects: done.effects, stored: done.committed };
}

/** The kernel's step of a node record. */
function applyNode(env: RunnerEnv, key: string, event: NodeEvent, options: CommitOptions) {
  return env.kernel.apply(key, NODE_RECORD, nodeStep, event, options);
}

/**
 * Commits a node step of a run this process drives and keeps the stored record in the run's cache.
 * Returns the stored record, or `undefined` when nothing was written: another writer changed the
 * node first (`ignored: lost_race`), or this runner's lease on it was fenced off (`lease_lost`).
 */
export async function writeNode(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  event: NodeEvent,
  options: { readonly release?: boolean; readonly quiet?: boolean } = {},
): Promise<NodeRecord | undefined> {
  const commit: CommitOptions = {
    lease: run.leases.get(node),
    release: options.release,
    basis: run.committed.get(node),
  };
  const applied = await applyNode(env, nodeKey(env.prefix, run.runId, node), event, commit);
  const done = committed(env, run.runId, node, applied, options.quiet);
  if (done.ok) {
    keep(run, node, done.record, done.stored); // a release is part of the same write
    if (options.release === true) run.leases.delete(node);
    // a node that stopped running changes the plan: the drive loop plans on this write at once
    if (done.record.status !== 'running') run.wake();
    return done.record;
  }
  await lost(env, run, node, done.code);
  return undefined;
}

/** Reports a write this runner did not make (`ignored`) and reads what the store holds instead. */
export async function lost(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  code: 'stale' | 'lease_lost' | 'lease_held',
): Promise<void> {
  if (code === 'lease_lost') run.leases.delete(node);
  env.events.emit('ignored', { runId: run.runId, node, code: code === 'lease_lost' ? code : 'lost_race' });
  await loadNode(env, run, node);
}

/** The outputs of every done node, for a node's context. */
export function outputsOf(run: ActiveRun): Record<string, NodeRecord['output']> {
  const outputs: Record<string, NodeRecord['output']> = {};
  run.records.forEach((record, id) => {
    if (record.status === 'done') outputs[id] = record.output;
  });
  return outputs;
}
