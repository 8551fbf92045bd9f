import { isParleyError, type Kernel, type KernelRefusal, type RecordCodec } from '@parley/core';
import { PipelineError } from '../errors.js';

// A cron trigger's record in the Store, kept by the durable kernel: the latest scheduled time fired
// by any process running the trigger. A process fires a time only after its claim of that time was
// committed (one compare-and-set on a fresh read), so two processes never both fire it; a
// restarted one reads where to catch up from.

/** How often a claim re-reads after losing a compare-and-set to a write of an older time. */
const MAX_CLAIM_ATTEMPTS = 3;

interface CronRecord {
  readonly scheduledAt: number;
  readonly firedAt: number;
}

/** The cron record's kind and format in the kernel. */
const CRON: RecordCodec<CronRecord> = {
  kind: 'parley.pipeline.cron',
  version: 1,
  decode(data) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
    const record = data as Partial<CronRecord>;
    return Number.isFinite(record.scheduledAt) && Number.isFinite(record.firedAt)
      ? { scheduledAt: record.scheduledAt as number, firedAt: record.firedAt as number }
      : undefined;
  },
  encode: (value) => ({ scheduledAt: value.scheduledAt, firedAt: value.firedAt }),
};

const when = (at: number): string => new Date(at).toISOString();

/** The pipeline error for a kernel refusal (or a KernelError thrown by a read). */
function failed(key: string, what: string, refusal: Pick<KernelRefusal, 'code' | 'message'>): PipelineError {
  if (refusal.code === 'corrupt_record' || refusal.code === 'record_version')
    return new PipelineError(
      'corrupt_record',
      `The cron record ${key} is not one this version writes; it is left as it is and nothing fires until it is removed`,
      { details: { key } },
    );
  return new PipelineError(
    'store_failed',
    `The cron record ${key} could not be ${what}: ${refusal.message}`,
    {
      details: { key },
    },
  );
}

/** The record read: the latest time fired (none yet: `undefined`), or why it cannot be trusted. */
export type CronRead =
  | { readonly ok: true; readonly scheduledAt: number | undefined }
  | { readonly ok: false; readonly error: PipelineError };

export async function readCronRecord(kernel: Kernel, key: string): Promise<CronRead> {
  try {
    const committed = await kernel.read(key, CRON);
    return { ok: true, scheduledAt: committed?.value.scheduledAt };
  } catch (error) {
    const code = isParleyError(error, 'corrupt_record', 'record_version') ? error.code : 'store_failed';
    return { ok: false, error: failed(key, 'read', { code, message: String(error) }) };
  }
}

/** A claim won: what the record held before, to put back when the claim is given up. */
export interface CronClaim {
  readonly scheduledAt: number;
  readonly previous: CronRecord | undefined;
}

/**
 * Claims `scheduledAt` for this process: `lost` when a process already fired it (or a later time),
 * `stopped` when `stopped()` turned true before the write, the claim when committed.
 */
export async function claimCronTime(
  kernel: Kernel,
  key: string,
  scheduledAt: number,
  firedAt: number,
  stopped: () => boolean,
): Promise<CronClaim | 'lost' | 'stopped' | PipelineError> {
  const read = await readCronRecord(kernel, key);
  if (!read.ok) return read.error;
  if (read.scheduledAt !== undefined && read.scheduledAt >= scheduledAt) return 'lost';
  if (stopped()) return 'stopped';
  let previous: CronRecord | undefined;
  const done = await kernel.apply(
    key,
    CRON,
    (current: CronRecord | undefined) => {
      previous = current;
      const lost = current !== undefined && current.scheduledAt >= scheduledAt;
      return { value: lost ? current : { scheduledAt, firedAt }, effects: [lost ? 'lost' : 'claimed'] };
    },
    undefined,
    { maxAttempts: MAX_CLAIM_ATTEMPTS },
  );
  if (done.ok) return done.effects[0] === 'lost' ? 'lost' : { scheduledAt, previous };
  if (done.code === 'write_conflict')
    return new PipelineError(
      'store_failed',
      `The claim of ${when(scheduledAt)} in ${key} lost ${MAX_CLAIM_ATTEMPTS} compare-and-sets in a row to writes of earlier times`,
      { details: { key, scheduledAt } },
    );
  return failed(key, `written to claim ${when(scheduledAt)}`, done);
}

/** Puts back what the claim replaced, unless another process fired a later time since; a failure is returned. */
export async function releaseCronClaim(
  kernel: Kernel,
  key: string,
  claim: CronClaim,
): Promise<PipelineError | undefined> {
  const done = await kernel.apply(
    key,
    CRON,
    (current: CronRecord | undefined) => ({
      value: current?.scheduledAt === claim.scheduledAt ? claim.previous : current,
      effects: [],
    }),
    undefined,
  );
  return done.ok ? undefined : failed(key, 'given back', done);
}
