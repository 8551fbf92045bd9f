// Reading a stored session: through the kernel, and a record of format 4, 3 or 2 (earlier releases)
// as the committed record it becomes on the next write (format 5, one compare-and-set on its version).
import {
  type Committed,
  isParleyError,
  type Kernel,
  type KernelRefusal,
  type LeaseState,
  type RecordCodec,
  type Store,
  type StoreEntry,
} from '@parley/core';
import { isRecord } from './internal/record.js';
import { FLOW_SESSION_KIND, FORMER_SESSION_RECORD_FORMATS } from './stored-session-record.js';

/**
 * @internal The committed record at `key` (`undefined`: none), or why it cannot be read; a former
 * record is decoded by `former`. A record of a former format under another owner's lease valid at
 * `now()` is refused `lease_held`: only its holder changes it, and this release writes it only as
 * format 5, so it waits until the lease is given back.
 */
export async function readSession<T>(
  kernel: Kernel,
  store: Store,
  key: string,
  codecs: { readonly codec: RecordCodec<T>; readonly former: (format: number) => RecordCodec<T> },
  now: () => number,
): Promise<Committed<T> | undefined | KernelRefusal> {
  try {
    return await kernel.read(key, codecs.codec);
  } catch (error) {
    for (const code of ['corrupt_record', 'record_version', 'store_failed'] as const) {
      if (!isParleyError(error, code)) continue;
      const refused: KernelRefusal = { ok: false, code, message: error.message, key };
      if (code !== 'record_version') return refused;
      const former = await formerSession(store, key, codecs.former, refused);
      const lease = 'ok' in former ? null : former.lease;
      if (lease === null || now() >= lease.expiresAt) return former;
      const message = `${key} is leased by ${lease.owner} until ${lease.expiresAt}`;
      return { ok: false, code: 'lease_held', message, key };
    }
    throw error;
  }
}

/**
 * @internal The session record of a former format (4, 3 or 2) at `key` as a committed record, its
 * data read by the codec `former` gives for its format (its lease, fence and deadline as stored: the
 * next write lands only on this version, under the same guard); `refused` when the key holds no
 * such record.
 */
export async function formerSession<T>(
  store: Store,
  key: string,
  former: (format: number) => RecordCodec<T>,
  refused: KernelRefusal,
): Promise<Committed<T> | KernelRefusal> {
  let entry: StoreEntry | undefined;
  try {
    entry = await store.getEntry(key);
  } catch (error) {
    const message = `reading ${key} failed: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, code: 'store_failed', message, key, cause: error };
  }
  const stored = entry?.value;
  if (entry === undefined || !isRecord(stored)) return refused;
  if (stored.kind !== FLOW_SESSION_KIND || !FORMER_SESSION_RECORD_FORMATS.includes(stored.version as number))
    return refused;
  const corrupt = (why: string): KernelRefusal => ({
    ok: false,
    code: 'corrupt_record',
    message: `${key}: ${why}`,
    key,
  });
  const { fence, deadlineAt } = stored;
  const lease = stored.lease === null ? null : leaseOf(stored.lease);
  if (lease === undefined || !Number.isSafeInteger(fence) || (fence as number) < 0) {
    return corrupt('lease or fence malformed');
  }
  if (deadlineAt !== null && !Number.isFinite(deadlineAt)) return corrupt('deadlineAt malformed');
  const codec = former(stored.version as number); // one of the former formats, checked above
  const value = codec.decode(stored.data);
  if (value === undefined) return corrupt(`data is not a valid ${codec.kind}`);
  // every part checked above
  return { key, value, storeVersion: entry.version, lease, fence, deadlineAt } as Committed<T>;
}

function leaseOf(value: unknown): LeaseState | undefined {
  if (!isRecord(value) || typeof value.owner !== 'string' || !Number.isSafeInteger(value.token))
    return undefined;
  return Number.isFinite(value.expiresAt) ? (value as unknown as LeaseState) : undefined; // fields checked
}
