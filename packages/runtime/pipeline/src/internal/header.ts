import { type Committed, isParleyError, type KernelRefusal } from '@parley/core';
import { RUN_RECORD, runKey, type RunRecord, type RunStatus } from '../records.js';
import type { RunnerEnv } from './env.js';
import { CorruptRecord } from './io.js';

/** A header read: the stored header (`undefined`: none) as committed, or why it cannot be read. */
export type HeaderRead =
  | { readonly ok: true; readonly header: Committed<RunRecord> | undefined }
  | {
      readonly ok: false;
      readonly code: 'corrupt_record' | 'store_failed';
      readonly message: string;
      readonly key: string;
    };

/** Reads a run's header from the store (a fresh read through the kernel), with its store version. */
export async function readHeader(env: RunnerEnv, runId: string): Promise<HeaderRead> {
  const key = runKey(env.prefix, runId);
  try {
    return { ok: true, header: await env.kernel.read(key, RUN_RECORD) };
  } catch (error) {
    if (isParleyError(error, 'corrupt_record', 'record_version'))
      return { ok: false, code: 'corrupt_record', message: `The stored record ${key} is corrupt`, key };
    return { ok: false, code: 'store_failed', message: `The store failed: ${String(error)}`, key };
  }
}

/**
 * Stores a new run's header unless the run exists: the header as committed, `exists`, or the
 * kernel's refusal. It lives `ttlMs` past now (the run's record lifetime). A new run's key holds
 * nothing, so the write starts from no record (`basis: null`) and reads only when one is there.
 */
export async function createHeader(
  env: RunnerEnv,
  runId: string,
  header: RunRecord,
  ttlMs: number,
): Promise<Committed<RunRecord> | 'exists' | KernelRefusal> {
  const done = await env.kernel.apply(
    runKey(env.prefix, runId),
    RUN_RECORD,
    (current: RunRecord | undefined, _event: undefined, now) =>
      current === undefined
        ? { value: header, effects: ['created'], deadlineAt: now + ttlMs }
        : { value: current, effects: ['exists'] },
    undefined,
    { basis: null },
  );
  if (!done.ok) return done;
  return done.effects[0] === 'created' && done.committed !== undefined ? done.committed : 'exists';
}

/**
 * Stores the run's final status in its header, once, whoever finishes first (a step on the fresh
 * record); a finished run's header lives `lifeMs` from now: the run's record lifetime, so it outlives
 * every node record of the run and a start that reuses the run id is refused until they are all gone
 * (a new run never reads the nodes of a former one). `header` is the header as this runner
 * last read or wrote it: the write starts from it, and reads again only when the store holds
 * another version (another runner finished the run first).
 * @throws CorruptRecord when the header fails its check; an Error when the store fails.
 */
export async function finishHeader(
  env: RunnerEnv,
  header: Committed<RunRecord>,
  status: RunStatus,
  lifeMs: number,
): Promise<void> {
  if (header.value.status !== 'running') return;
  const done = await env.kernel.apply(
    header.key,
    RUN_RECORD,
    (current: RunRecord | undefined, _event: undefined, now) =>
      current?.status === 'running'
        ? { value: { ...current, status, endedAt: now }, effects: [], deadlineAt: now + lifeMs }
        : { value: current, effects: [] },
    undefined,
    { basis: header },
  );
  if (done.ok) return;
  if (done.code === 'corrupt_record' || done.code === 'record_version') throw new CorruptRecord(done.key);
  throw new Error(done.message);
}
