// Reading and writing the kernel's envelope around a package record (pure).
import type { StoreEntry } from '../store.js';
import { MAX_TTL_MS } from '../store-keys.js';
import type {
  Committed,
  KernelRecord,
  KernelRefusal,
  KernelRefusalCode,
  Lease,
  LeaseState,
  RecordCodec,
} from './types.js';

/** @internal A stored record read through a codec: absent, present, or unreadable with a reason. */
export type Decoded<T> =
  | {
      readonly ok: true;
      readonly record: KernelRecord | undefined;
      readonly committed: Committed<T> | undefined;
      readonly version: number | null;
    }
  | { readonly ok: false; readonly code: 'corrupt_record' | 'record_version'; readonly message: string };

/** @internal Checks the envelope and the data of a stored entry against `codec`. */
export function decodeEntry<T>(
  key: string,
  entry: StoreEntry | undefined,
  codec: RecordCodec<T> | undefined,
): Decoded<T> {
  if (entry === undefined) return { ok: true, record: undefined, committed: undefined, version: null };
  const v = entry.value;
  const bad = (why: string): Decoded<T> => ({ ok: false, code: 'corrupt_record', message: `${key}: ${why}` });
  if (!isObject(v) || typeof v.kind !== 'string' || typeof v.version !== 'number' || !('data' in v)) {
    const value = codec?.legacy?.(v, entry.version);
    if (codec !== undefined && value !== undefined) return fromLegacy(key, codec, value, entry.version);
    return bad(`not a kernel record${codec === undefined ? '' : ` of kind ${codec.kind}`}`);
  }
  if (codec !== undefined && v.kind !== codec.kind) return bad(`holds a ${v.kind} record, not ${codec.kind}`);
  if (codec !== undefined && v.version !== codec.version) {
    return {
      ok: false,
      code: 'record_version',
      message: `${key}: record format ${v.version} of ${codec.kind}, this code reads ${codec.version}`,
    };
  }
  const lease = v.lease === null ? null : leaseOf(v.lease);
  if (lease === undefined || !isCount(v.fence) || !(v.deadlineAt === null || Number.isFinite(v.deadlineAt))) {
    return bad('lease, fence or deadlineAt malformed');
  }
  // every envelope field checked above; data is checked by the codec below
  const record = v as unknown as KernelRecord;
  if (record.data === null || codec === undefined)
    return { ok: true, record, committed: undefined, version: entry.version };
  const value = codec.decode(record.data);
  if (value === undefined) return bad(`data is not a valid ${codec.kind}`);
  const { fence, deadlineAt } = record;
  const committed: Committed<T> = { key, value, storeVersion: entry.version, lease, fence, deadlineAt };
  return { ok: true, record, committed, version: entry.version };
}

/** A value stored before the kernel, read as the committed record it becomes on the next write. */
function fromLegacy<T>(key: string, codec: RecordCodec<T>, value: T, version: number): Decoded<T> {
  const base = { lease: null, fence: 0, deadlineAt: null };
  const record: KernelRecord = {
    kind: codec.kind,
    version: codec.version,
    data: codec.encode(value),
    ...base,
  };
  return { ok: true, record, committed: { key, value, storeVersion: version, ...base }, version };
}

/**
 * @internal The store TTL of a record: its deadline (or its lease, for a lease-only record) plus
 * `graceMs`, or none for a record without a deadline. Never below 1 ms, never above {@link MAX_TTL_MS}.
 */
export function ttlOf(record: KernelRecord, now: number, graceMs: number): number | undefined {
  const until = record.data === null ? (record.lease?.expiresAt ?? now) : record.deadlineAt;
  if (until === null) return undefined;
  const last = Math.max(until, record.deadlineAt ?? until, record.lease?.expiresAt ?? until);
  return Math.min(MAX_TTL_MS, Math.max(1, Math.ceil(last + graceMs - now)));
}

/** @internal Whether `lease` is valid at `now`. */
export const isValid = (lease: LeaseState | null, now: number): lease is LeaseState =>
  lease !== null && now < lease.expiresAt;

function leaseOf(value: unknown): LeaseState | undefined {
  if (!isObject(value) || typeof value.owner !== 'string' || !isCount(value.token)) return undefined;
  return Number.isFinite(value.expiresAt) ? (value as unknown as LeaseState) : undefined; // fields checked
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @internal A refusal of the kernel. */
export const refusal = (
  code: KernelRefusalCode,
  key: string,
  message: string,
  cause?: unknown,
): KernelRefusal =>
  cause === undefined ? { ok: false, code, message, key } : { ok: false, code, message, key, cause };

/**
 * @internal Refuses a write under `lease` that is fenced off or expired, or one without a lease on a
 * record under another valid lease.
 */
export function guard(
  key: string,
  record: KernelRecord | undefined,
  lease: Lease | undefined,
  now: number,
): KernelRefusal | undefined {
  const held = record?.lease ?? null;
  if (lease === undefined) {
    return isValid(held, now)
      ? refusal('lease_held', key, `${key} is leased by ${held.owner} until ${held.expiresAt}`)
      : undefined;
  }
  if (held === null || held.token !== lease.token || held.owner !== lease.owner || lease.key !== key) {
    return refusal('lease_lost', key, `the lease of ${key} with token ${lease.token} was fenced off`);
  }
  return now < held.expiresAt
    ? undefined
    : refusal('lease_lost', key, `the lease of ${key} expired at ${held.expiresAt}`);
}

/** The envelope's keys, in the order every record the kernel builds has them. */
const KEYS = ['kind', 'version', 'data', 'lease', 'fence', 'deadlineAt'] as const;

/** @internal Whether `record` has exactly the envelope's keys, in order (no key of its own besides). */
export function hasEnvelopeKeys(record: KernelRecord): boolean {
  let i = 0;
  for (const key in record) {
    if (key !== KEYS[i]) return false;
    i++;
  }
  return i === KEYS.length;
}

/**
 * @internal The next envelope of a record (`data: null`: no value): `{ kind, version, data: null,
 * lease: null, fence: 0, deadlineAt: null, ...base, ...patch }`, built field by field when `base`
 * has only the envelope's keys (every record the kernel wrote), so it copies no object twice. A
 * record whose fence was ever used stays as a tombstone, so its tokens are never handed out twice;
 * others are deleted.
 */
export function envelope<T>(
  codec: RecordCodec<T>,
  base: KernelRecord | undefined,
  patch: Partial<KernelRecord>,
): KernelRecord | undefined {
  if (base !== undefined && !hasEnvelopeKeys(base)) {
    const next: KernelRecord = { ...blank(codec), ...base, ...patch }; // keys of its own are kept
    return next.data === null && next.fence === 0 ? undefined : next;
  }
  const b = base ?? blank(codec);
  type Data = KernelRecord['data'];
  type LeaseField = KernelRecord['lease'];
  const next: KernelRecord = {
    kind: 'kind' in patch ? (patch.kind as string) : b.kind,
    version: 'version' in patch ? (patch.version as number) : b.version,
    data: 'data' in patch ? (patch.data as Data) : b.data,
    lease: 'lease' in patch ? (patch.lease as LeaseField) : b.lease,
    fence: 'fence' in patch ? (patch.fence as number) : b.fence,
    deadlineAt: 'deadlineAt' in patch ? (patch.deadlineAt as number | null) : b.deadlineAt,
  };
  return next.data === null && next.fence === 0 ? undefined : next;
}

/** A record of `codec` with no value, lease, fence or deadline. */
const blank = <T>(codec: RecordCodec<T>): KernelRecord => ({
  kind: codec.kind,
  version: codec.version,
  data: null,
  lease: null,
  fence: 0,
  deadlineAt: null,
});

/** @internal The text of a thrown value. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** @internal Whether `text` is longer than `maxBytes` in UTF-8 (encodes only when it could be). */
export function tooLarge(text: string, maxBytes: number): boolean {
  return (
    text.length > maxBytes || (text.length * 3 > maxBytes && new TextEncoder().encode(text).length > maxBytes)
  );
}
