import { readRecord, runKey, type RunRecord, writeRecord } from '../records.js';
import type { RunStatus } from '../records.js';
import type { RunnerEnv } from './env.js';
import { CorruptRecord } from './io.js';

/** Compare-and-sets a header loses in a row to other writers before it gives up. */
const MAX_HEADER_ATTEMPTS = 5;

/**
 * Changes a run's header from its stored version: `change` gets the fresh record and returns the
 * next one (or `undefined`: nothing to write); a lost compare-and-set reads again (bounded).
 */
async function updateHeader(
  env: RunnerEnv,
  runId: string,
  change: (header: RunRecord) => RunRecord | undefined,
): Promise<void> {
  const key = runKey(env.prefix, runId);
  for (let tries = 0; tries < MAX_HEADER_ATTEMPTS; tries++) {
    const header = readRecord(await env.store.getEntry(key), 'run');
    if (header === 'corrupt') throw new CorruptRecord(key);
    const next = header === undefined ? undefined : change(header.value);
    if (header === undefined || next === undefined) return;
    if ((await writeRecord(env.store, key, header.version, next, env.ttlMs)) !== false) return;
  }
}

/** Stores the run's final status in its header, once, whoever finishes first; it lives `ttlMs` from now. */
export function finishHeader(env: RunnerEnv, runId: string, status: RunStatus): Promise<void> {
  return updateHeader(env, runId, (header) =>
    header.status === 'running' ? { ...header, status, endedAt: env.clock.now() } : undefined,
  );
}
