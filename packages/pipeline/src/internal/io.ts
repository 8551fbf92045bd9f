import { nodeKey, type NodeRecord, readRecord, type Versioned, writeRecord } from '../records.js';
import type { ActiveRun, RunnerEnv } from './env.js';

/** Thrown inside a run when a stored record fails its schema; the drive loop reports it. */
export class CorruptRecord extends Error {
  constructor(readonly key: string) {
    super(`The stored record ${key} is corrupt`);
  }
}

/** Reads a node's record from the store into the run's cache. */
export async function loadNode(env: RunnerEnv, run: ActiveRun, node: string): Promise<Versioned<NodeRecord>> {
  const key = nodeKey(env.prefix, run.runId, node);
  const read = readRecord(await env.store.getEntry(key), 'node');
  if (read === 'corrupt') throw new CorruptRecord(key);
  run.records.set(node, read);
  return read;
}

/**
 * Writes a node's next record over the cached version (compare-and-set) and emits its transition.
 * Returns the stored record, or `undefined` when another writer changed it first (`lost_race`).
 */
export async function writeNode(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  next: NodeRecord,
  quiet = false,
): Promise<NodeRecord | undefined> {
  const current = run.records.get(node) as Versioned<NodeRecord>; // read before every write
  const key = nodeKey(env.prefix, run.runId, node);
  const version = await writeRecord(env.store, key, current.version, next, run.ttlMs);
  if (version === false) {
    env.events.emit('ignored', { runId: run.runId, node, code: 'lost_race' });
    await loadNode(env, run, node);
    return undefined;
  }
  run.records.set(node, { value: next, version });
  if (!quiet && (next.status !== current.value.status || next.revision !== current.value.revision)) {
    env.events.emit('node', {
      runId: run.runId,
      node,
      previous: current.value.status,
      status: next.status,
      attempt: next.attempts,
      revision: next.revision,
      spawnId: next.spawnId,
      code: next.code,
      reason: next.reason,
      escalateTo: next.escalateTo,
    });
  }
  return next;
}

/** The outputs of every done node, for a node's context. */
export function outputsOf(run: ActiveRun): Record<string, NodeRecord['output']> {
  const outputs: Record<string, NodeRecord['output']> = {};
  for (const [id, record] of run.records)
    if (record.value.status === 'done') outputs[id] = record.value.output;
  return outputs;
}
