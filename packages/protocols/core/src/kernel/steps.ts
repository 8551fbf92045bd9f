// The kernel's decisions over a fresh read, as module functions: apply a step, take, renew and give
// back a lease; and the committed copies it hands out and takes back as a basis.
import type { StoreEntry } from '../store.js';
import { KernelError } from './errors.js';
import type { Fresh, Plan } from './mutate.js';
import { decodeEntry, envelope, guard, messageOf } from './record.js';
import type { WrittenRecords } from './record-text.js';
import type { Committed, KernelRecord, KernelRefusal, KernelStep, Lease, RecordCodec } from './types.js';

/** @internal A kernel's `invalid_argument` error. */
export function invalid(message: string): KernelError {
  return new KernelError('invalid_argument', message);
}

/** @internal Throws `invalid_argument` unless `ms` is a positive finite number of ms. */
export function ttlCheck(ms: number, name: string): void {
  if (!(Number.isFinite(ms) && ms > 0))
    throw invalid(`${name} must be a positive number of ms, got ${String(ms)}`);
}

/** @internal Throws `invalid_argument` for `acquire`'s bad `ttlMs` or `lifeMs`, or a `lifeMs` without a change. */
export function acquireCheck(ttlMs: number, lifeMs: number | undefined, changing: boolean): void {
  ttlCheck(ttlMs, 'ttlMs');
  if (lifeMs === undefined) return;
  if (!changing) throw invalid('lifeMs is the life of a changed record: give it with a change');
  ttlCheck(lifeMs, 'lifeMs');
}

/** The read a `basis: null` stands for: no record (a compare-and-set on it lands only on an absent key). */
const ABSENT = { ok: true, record: undefined, committed: undefined, version: null } as const;

/** The envelope fields a committed record carries. */
function leaseOf<T>(basis: Committed<T>): Pick<KernelRecord, 'lease' | 'fence' | 'deadlineAt'> {
  return { lease: basis.lease, fence: basis.fence, deadlineAt: basis.deadlineAt };
}

/** @internal Throws `invalid_argument` unless `basis` is a record of `key`. */
export function basisOf(basis: Committed<unknown>, key: string): void {
  if (basis.key !== key) throw invalid(`basis is a record of ${basis.key}, not ${key}`);
}

/** @internal The committed copy of `next` handed out to a caller, remembered with the record it stands for. */
export function committedOf<T>(
  written: WrittenRecords,
  key: string,
  next: KernelRecord | undefined,
  value: T | undefined,
  version: number | null,
): Committed<T> | undefined {
  if (next === undefined || value === undefined || version === null) return undefined;
  const { lease, fence, deadlineAt } = next;
  const committed: Committed<T> = { key, value, storeVersion: version, lease, fence, deadlineAt };
  written.handedOut(next, committed);
  return committed;
}

/** @internal The read a caller's committed copy stands for: its record as written, or rebuilt from it. */
export function basisRead<T>(
  written: WrittenRecords,
  key: string,
  codec: RecordCodec<T>,
  basis: Committed<T> | null,
): Fresh<T> {
  if (basis === null) return ABSENT;
  basisOf(basis, key);
  const known = written.recordOf(basis);
  const record: KernelRecord =
    known !== undefined && known.kind === codec.kind && known.version === codec.version
      ? known
      : { kind: codec.kind, version: codec.version, data: codec.encode(basis.value), ...leaseOf(basis) };
  return { ok: true, record, committed: basis, version: basis.storeVersion };
}

/** @internal What `apply` runs on a read: the step, guarded by the lease; nothing written when it changed nothing. */
export function applyPlan<T, E, X>(
  key: string,
  codec: RecordCodec<T>,
  step: KernelStep<T, E, X>,
  event: E,
  lease: Lease | undefined,
  release: boolean | undefined,
  read: Fresh<T>,
  now: number,
): Plan<{ readonly value: T | undefined; readonly effects: readonly X[] }> {
  const refused = guard(key, read.record, lease, now);
  if (refused !== undefined) return refused;
  const result = step(read.committed?.value, event, now);
  const out = { value: result.value, effects: result.effects };
  const same = result.value !== undefined && result.value === read.committed?.value;
  if (same && result.deadlineAt === undefined && release !== true) {
    return { write: false, next: read.record, out }; // the step changed nothing: nothing to write
  }
  // an expired lease stays in the record: a clock that jumps back makes it valid again, never free
  const keep = release === true ? null : (read.record?.lease ?? null);
  const deadlineAt = result.deadlineAt === undefined ? (read.record?.deadlineAt ?? null) : result.deadlineAt;
  // the value it was given: the data it was read with (so the data's text is written once)
  const data =
    result.value === undefined
      ? null
      : same && read.record !== undefined
        ? read.record.data
        : codec.encode(result.value);
  const next = envelope(codec, read.record, { data, lease: keep, deadlineAt });
  return { write: true, next, out };
}

/** @internal What `acquire` runs on a read: a new lease of `owner` with the next fencing token, and the change made under it. */
export function acquirePlan<T>(
  key: string,
  codec: RecordCodec<T>,
  taking: {
    readonly owner: string;
    readonly ttlMs: number;
    readonly force: boolean;
    readonly change: ((current: T | undefined, lease: Lease, now: number) => T | undefined) | undefined;
    readonly lifeMs: number | undefined;
  },
  read: Fresh<T>,
  now: number,
): Plan<{ readonly lease: Lease; readonly value: T | undefined }> {
  const { owner, ttlMs, force, change, lifeMs } = taking;
  const refused = force ? undefined : guard(key, read.record, undefined, now);
  if (refused !== undefined) return refused;
  const token = (read.record?.fence ?? 0) + 1;
  const lease: Lease = { key, owner, token, expiresAt: now + ttlMs };
  const current = read.committed?.value;
  const changed = change?.(current, lease, now);
  // the value as read keeps its data object (so the data's text is written once)
  const kept = changed === undefined || changed === current;
  const held = { owner, token, expiresAt: lease.expiresAt };
  const patch: { -readonly [K in keyof KernelRecord]?: KernelRecord[K] } = kept
    ? { lease: held, fence: token }
    : { data: codec.encode(changed), lease: held, fence: token };
  if (!kept && lifeMs !== undefined) patch.deadlineAt = now + lifeMs; // a changed record's life starts now
  const next = envelope(codec, read.record, patch);
  return { write: true, next, out: { lease, value: kept ? current : changed } };
}

/** @internal What `renew` runs on a read: the same lease, its expiry moved to `now + ttlMs`. */
export function renewPlan(lease: Lease, ttlMs: number, read: Fresh<unknown>, now: number): Plan<Lease> {
  const refused = guard(lease.key, read.record, lease, now);
  if (refused !== undefined || read.record === undefined) return refused as KernelRefusal;
  const expiresAt = now + ttlMs;
  const next: KernelRecord = {
    ...read.record,
    lease: { owner: lease.owner, token: lease.token, expiresAt },
  };
  return { write: true, next, out: { ...lease, expiresAt } };
}

/** @internal What `release` runs on a read: the lease dropped when it is still this holder's. */
export function releasePlan(lease: Lease, read: Fresh<unknown>, now: number): Plan<undefined> {
  const mine = guard(lease.key, read.record, lease, now) === undefined && read.record !== undefined;
  return {
    write: mine,
    next: mine ? { ...(read.record as KernelRecord), lease: null } : undefined,
    out: undefined,
  };
}

/** @internal The `store_failed` error of a read of `key` that threw. */
export function readFailed(key: string, err: unknown): KernelError {
  return new KernelError('store_failed', `reading ${key} failed: ${messageOf(err)}`, {
    cause: err,
    details: { key },
  });
}

/** @internal The committed record read from `entry`; a record that is not `codec`'s is thrown. */
export function committedRead<T>(
  key: string,
  entry: StoreEntry | undefined,
  codec: RecordCodec<T>,
): Committed<T> | undefined {
  const read = decodeEntry(key, entry, codec);
  if (!read.ok) throw new KernelError(read.code, read.message, { details: { key } });
  return read.committed;
}
