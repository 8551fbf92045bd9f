import { type Committed, isParleyError, type KernelRefusal } from '@parley/core';
import { RUN_RECORD, runKey, type RunRecord, type RunStatus } from '../records.js';
import type { RunnerEnv } from './env.js';
import { CorruptRecord } from './io.js';

/** A header read: the stored header (`undefined`: none), or why it cannot be read. */
export type HeaderRead =
  | { readonly ok: true; readonly header: RunRecord | undefined }
  | {
      readonly ok: false;
      readonly code: 'corrupt_record' | 'store_failed';
      readonly message: string;
      readonly key: string;
    };

/** Reads a run's header from the store (a fresh read through the kernel). */
export async function readHeader(env: RunnerEnv, runId: string): Promise<HeaderRead> {
  const read = await readCommittedHeader(env, runId);
  return read.ok ? { ok: true, header: read.committed?.value } : read;
}

/** Reads a run's header with its store version, so a write on it needs no second read. */
async function readCommittedHeader(
  env: RunnerEnv,
  runId: string,
): Promise<
  | { readonly ok: true; readonly committed: Committed<RunRecord> | undefined }
  | Exclude<HeaderRead, { ok: true }>
> {
  const key = runKey(env.prefix, runId);
  try {
    return { ok: true, committed: await env.kernel.read(key, RUN_RECORD) };
  } catch (error) {
    if (isParleyError(error, 'corrupt_record', 'record_version'))
      return { ok: false, code: 'corrupt_record', message: `The stored record ${key} is corrupt`, key };
    return { ok: false, code: 'store_failed', message: `The store failed: ${String(error)}`, key };
  }
}

/**
 * Stores a new run's header unless the run exists: `created`, `exists`, or the kernel's refusal.
 * It lives `ttlMs` past now (the run's record lifetime).
 */
export async function createHeader(
  env: RunnerEnv,
  runId: string,
  header: RunRecord,
  ttlMs: number,
): Promise<'created' | 'exists' | KernelRefusal> {
  const done = await env.kernel.apply(
    runKey(env.prefix, runId),
    RUN_RECORD,
    (current: RunRecord | undefined, _event: undefined, now) =>
      current === undefined
        ? { value: header, effects: ['created'], deadlineAt: now + ttlMs }
        : { value: current, effects: ['exists'] },
    undefined,
  );
  if (!done.ok) return done;
  return done.effects[0] === 'created' ? 'created' : 'exists';
}

/**
 * Stores the run's final status in its header, once, whoever finishes first (a step on the fresh
 * record); a finished run's header lives `ttlMs` from now.
 * @throws CorruptRecord when the header fails its check; an Error when the store fails.
 */
export async function finishHeader(env: RunnerEnv, runId: string, status: RunStatus): Promise<void> {
  const read = await readCommittedHeader(env, runId);
  if (!read.ok && read.code === 'corrupt_record') throw new CorruptRecord(read.key);
  if (!read.ok) throw new Error(read.message);
  const basis = read.committed;
  if (basis?.value.status !== 'running') return;
  const done = await env.kernel.apply(
    runKey(env.prefix, runId),
    RUN_RECORD,
    (current: RunRecord | undefined, _event: undefined, now) =>
      current?.status === 'running'
        ? { value: { ...current, status, endedAt: now }, effects: [], deadlineAt: now + env.ttlMs }
        : { value: current, effects: [] },
    undefined,
    { basis }, // the header just read: a write that lost a race reads again
  );
  if (done.ok) return;
  if (done.code === 'corrupt_record' || done.code === 'record_version') throw new CorruptRecord(done.key);
  throw new Error(done.message);
}
