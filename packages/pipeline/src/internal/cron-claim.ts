import type { JsonValue, Store } from '@parley/core';
import { PipelineError } from '../errors.js';

// A cron trigger's record in the Store: the latest scheduled time fired by any process running the
// trigger. A process fires a time only after it wrote that time here by compare-and-set, so two
// processes never both fire it; a restarted one reads where to catch up from.

/** How often a claim re-reads after losing a compare-and-set to a write of an older time. */
const MAX_CLAIM_ATTEMPTS = 3;

interface CronRecord {
  readonly v: 1;
  readonly scheduledAt: number;
  readonly firedAt: number;
}

function isCronRecord(value: unknown): value is CronRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Partial<CronRecord>;
  return record.v === 1 && Number.isFinite(record.scheduledAt) && Number.isFinite(record.firedAt);
}

const when = (at: number): string => new Date(at).toISOString();

function storeFailed(key: string, what: string, cause: unknown): PipelineError {
  return new PipelineError('store_failed', `The cron record ${key} could not be ${what}`, {
    details: { key },
    cause,
  });
}

/** The record read: the latest time fired (none yet: `undefined`), or why it cannot be trusted. */
export type CronRead =
  | {
      readonly ok: true;
      readonly version: number | null;
      readonly value: JsonValue | undefined;
      readonly scheduledAt: number | undefined;
    }
  | { readonly ok: false; readonly error: PipelineError };

export async function readCronRecord(store: Store, key: string): Promise<CronRead> {
  let entry: Awaited<ReturnType<Store['getEntry']>>;
  try {
    entry = await store.getEntry(key);
  } catch (error) {
    return { ok: false, error: storeFailed(key, 'read', error) };
  }
  if (entry === undefined) return { ok: true, version: null, value: undefined, scheduledAt: undefined };
  if (!isCronRecord(entry.value)) {
    const error = new PipelineError(
      'corrupt_record',
      `The cron record ${key} is not one this version writes; it is left as it is and nothing fires until it is removed`,
      { details: { key } },
    );
    return { ok: false, error };
  }
  return { ok: true, version: entry.version, value: entry.value, scheduledAt: entry.value.scheduledAt };
}

/** A claim won: what to write back to give it up. */
export interface CronClaim {
  readonly version: number;
  readonly previous: JsonValue | undefined;
}

/**
 * Claims `scheduledAt` for this process: `lost` when a process already fired it (or a later time),
 * `stopped` when `stopped()` turned true before the write, the claim when written.
 */
export async function claimCronTime(
  store: Store,
  key: string,
  scheduledAt: number,
  firedAt: number,
  stopped: () => boolean,
): Promise<CronClaim | 'lost' | 'stopped' | PipelineError> {
  for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
    const read = await readCronRecord(store, key);
    if (!read.ok) return read.error;
    if (read.scheduledAt !== undefined && read.scheduledAt >= scheduledAt) return 'lost';
    if (stopped()) return 'stopped';
    const record: CronRecord = { v: 1, scheduledAt, firedAt };
    try {
      const result = await store.compareAndSet(key, read.version, record as unknown as JsonValue);
      if (result.ok) return { version: result.version, previous: read.value };
    } catch (error) {
      return storeFailed(key, `written to claim ${when(scheduledAt)}`, error);
    }
  }
  return new PipelineError(
    'store_failed',
    `The claim of ${when(scheduledAt)} in ${key} lost ${MAX_CLAIM_ATTEMPTS} compare-and-sets in a row to writes of earlier times`,
    { details: { key, scheduledAt } },
  );
}

/** Puts back what the claim replaced; a failure is returned, not thrown. */
export async function releaseCronClaim(
  store: Store,
  key: string,
  claim: CronClaim,
): Promise<PipelineError | undefined> {
  try {
    await store.compareAndSet(key, claim.version, claim.previous);
    return undefined;
  } catch (error) {
    return storeFailed(key, 'given back', error);
  }
}
