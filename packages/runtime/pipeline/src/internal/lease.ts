import type { KernelRecord, KernelRefusal, Lease, LeaseState, StepResult } from '@parley/core';
import { NODE_RECORD, nodeKey, type NodeRecord, nodeView } from '../records.js';
import { type NodeEffect, type NodeEvent, nodeStep, PENDING } from '../node-step.js';
import type { ActiveRun, RunnerEnv } from './env.js';
import { committed, keep, lost, thrown, writeNode } from './io.js';

type Start = Extract<NodeEvent, { readonly type: 'start' }>;
/** A change written with a lease, and the life of the record it writes. */
interface Changing {
  readonly change: (current: NodeRecord | undefined, lease: Lease, now: number) => NodeRecord | undefined;
  readonly lifeMs: number;
}
type Taken = { readonly ok: true; readonly lease: Lease } | KernelRefusal;

/**
 * Holds the node's lease for `ttlMs` more: renews the one this process holds, or takes it (a new
 * fencing token) when no valid lease is held, or when the stored one is this runner id's from before
 * a restart. `false` when another runner holds it or fenced this one off (`ignored`).
 */
export async function holdLease(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  ttlMs: number,
): Promise<boolean> {
  const held = run.leases.get(node);
  let result: Taken;
  if (held !== undefined) {
    run.committed.delete(node); // the renewal writes a version this process is not told
    result = await env.kernel.renew(held, { ttlMs });
  } else result = await take(env, run, node, ttlMs, undefined);
  if (result.ok) {
    run.leases.set(node, result.lease);
    return true;
  }
  await refused(env, run, node, result);
  return false;
}

/** A lease refused is reported (`ignored`) and the node read again; any other refusal is thrown. */
async function refused(env: RunnerEnv, run: ActiveRun, node: string, refusal: KernelRefusal): Promise<void> {
  if (refusal.code !== 'lease_lost' && refusal.code !== 'lease_held') throw thrown(refusal);
  await lost(env, run, node, refusal.code);
}

/**
 * Holds the node's lease for `ttlMs` and writes `start` under it: where no lease is held, the new
 * lease and the start go in one compare-and-set (the start's step run on the read the lease is
 * granted on); a held lease is renewed and the start written after. The started record, or
 * `undefined` when the node is not this attempt's to start (another runner holds or took it, or the
 * step refused the start: the lease taken for it is given back).
 */
export async function startUnderLease(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  ttlMs: number,
  start: Start,
): Promise<NodeRecord | undefined> {
  if (run.leases.has(node)) return startAfterLease(env, run, node, ttlMs, () => start);
  let stepped: StepResult<NodeRecord, NodeEffect> | undefined; // the step as run on the read that won
  const taken = await take(env, run, node, ttlMs, {
    change: (current, _lease, now) => {
      stepped = nodeStep(current, start, now);
      return stepped.value;
    },
    lifeMs: start.lifeMs,
  });
  if (!taken.ok) {
    await refused(env, run, node, taken);
    return undefined;
  }
  run.leases.set(node, taken.lease);
  const effects = (stepped as StepResult<NodeRecord, NodeEffect>).effects; // a granted lease ran the change
  const stored = run.committed.get(node);
  const done = committed(env, run.runId, node, { ok: true, committed: stored, effects }, undefined);
  if (done.ok) return done.record;
  await lost(env, run, node, done.code); // the step refused the start: the lease was taken for nothing
  await releaseLease(env, run, node);
  return undefined;
}

/**
 * Holds the node's lease for `ttlMs`, then writes the start `startOf` makes from the record the
 * lease was held on. The started record, or `undefined` when the node is not this attempt's to
 * start (the lease, when it was held, is given back).
 */
export async function startAfterLease(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  ttlMs: number,
  startOf: (record: NodeRecord) => Start,
): Promise<NodeRecord | undefined> {
  if (!(await holdLease(env, run, node, ttlMs))) return undefined;
  const started = await writeNode(env, run, node, startOf(run.records.get(node) as NodeRecord));
  if (started === undefined) await releaseLease(env, run, node); // not this attempt's to start: give it back
  return started;
}

/**
 * Takes the node's lease (with `changing`'s value and record life in the same write),
 * keeping what was written in the run's cache; forced where the stored lease is this runner id's
 * from before a restart, or a lease alone on a node with no data yet that is this runner id's.
 */
async function take(
  env: RunnerEnv,
  run: ActiveRun,
  node: string,
  ttlMs: number,
  changing: Changing | undefined,
): Promise<Taken> {
  const key = nodeKey(env.prefix, run.runId, node);
  const stored = run.records.get(node);
  const force = stored?.owner === env.runnerId; // this runner id's lease from before a restart
  // A node last seen pending with no record is expected to have none: its lease is written
  // without a read, and lands only where the key is still absent (else it is decided on a read).
  const basis = run.committed.get(node) ?? (stored?.status === 'pending' ? null : undefined);
  let acquired = await env.kernel.acquire(key, NODE_RECORD, { ttlMs, force, basis, ...changing });
  if (!acquired.ok && acquired.code === 'lease_held' && !force) {
    // A lease on a node with no data yet (taken just before a start): whose, and until when?
    const lease = await leaseOnly(env, key);
    if (lease?.owner === env.runnerId)
      acquired = await env.kernel.acquire(key, NODE_RECORD, { ttlMs, force: true, ...changing });
    else if (lease !== undefined) run.blocked.set(node, lease.expiresAt);
  }
  if (acquired.ok) keep(run, node, nodeView(acquired.committed, PENDING), acquired.committed);
  return acquired;
}

/** Gives back the node's lease this process holds (best effort: it expires anyway). */
export async function releaseLease(env: RunnerEnv, run: ActiveRun, node: string): Promise<void> {
  const held = run.leases.get(node);
  run.leases.delete(node);
  if (held === undefined) return;
  run.committed.delete(node); // the release writes a version this process is not told
  await env.kernel.release(held);
}

/**
 * The lease of a kernel record that holds no data yet (`kernel.read` reports none): read from the
 * record's envelope, for a lease taken on a pending node just before its start was written.
 */
async function leaseOnly(env: RunnerEnv, key: string): Promise<LeaseState | undefined> {
  const record = (await env.store.getEntry(key))?.value as Partial<KernelRecord> | undefined; // checked below
  const lease = record?.kind === NODE_RECORD.kind && record.data === null ? record.lease : undefined;
  return typeof lease?.owner === 'string' && Number.isFinite(lease.expiresAt) ? lease : undefined;
}
