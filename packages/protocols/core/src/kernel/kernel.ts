// createKernel: fresh-read steps committed with one compare-and-set, and fenced leases in the record.
import { type Clock, systemClock } from '../clock.js';
import type { Store, StoreEntry } from '../store.js';
import { abandonStep, CLAIM_RECORDS, claimStep, settleStep } from './claims.js';
import { KernelError } from './errors.js';
import { DEFAULT_LIST_LIMIT, listRecords } from './list.js';
import { createOwnerId } from './owner.js';
import { createMutate, type Fresh, readEntry, versionOf } from './mutate.js';
import { WrittenRecords } from './record-text.js';
import { decodeEntry, envelope, guard, messageOf } from './record.js';
import type { Kernel } from './api.js';
import type { Committed, KernelRecord, KernelRefusal, Lease, RecordCodec } from './types.js';

/**
 * Options of {@link createKernel}.
 *
 * @example
 * ```ts
 * import { createManualClock, createMemoryStore, type KernelOptions } from '@parley/core';
 *
 * const clock = createManualClock();
 * const options: KernelOptions = { store: createMemoryStore({ clock }), clock, owner: 'worker-a', graceMs: 60_000 };
 * ```
 */
export interface KernelOptions {
  readonly store: Store;
  readonly clock?: Clock;
  /** This process's owner id; unique by default ({@link createOwnerId}). Two processes must never share one. */
  readonly owner?: string;
  /** How long a record outlives its stored deadline (store TTL = deadline + grace); {@link DEFAULT_GRACE_MS}. */
  readonly graceMs?: number;
  /** The largest record written, in UTF-8 bytes of its JSON (`too_large` past it); 1 MiB by default. */
  readonly maxRecordBytes?: number;
}

/**
 * How long a record outlives its stored deadline by default: one hour.
 *
 * @example
 * ```ts
 * import { DEFAULT_GRACE_MS } from '@parley/core';
 *
 * console.log(DEFAULT_GRACE_MS); // 3600000
 * ```
 */
export const DEFAULT_GRACE_MS = 3_600_000;

/**
 * How many times {@link Kernel.apply} re-reads and re-runs a step after losing a race, by default.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ATTEMPTS } from '@parley/core';
 *
 * console.log(DEFAULT_MAX_ATTEMPTS); // 8
 * ```
 */
export const DEFAULT_MAX_ATTEMPTS = 8;

/**
 * Creates the durable kernel over a Store: every change is a pure step run on a fresh read and
 * committed with one compare-and-set; leases with fencing tokens live inside the record they guard;
 * effects are claimed before they run.
 *
 * Use it for any record that several processes (replicas, a restarted process) may change: the
 * store's record is the truth, never an in-memory copy.
 *
 * @throws KernelError `invalid_argument` for an empty owner, a negative `graceMs` or a bad `maxRecordBytes`.
 * @example
 * ```ts
 * import { createKernel, createMemoryStore, type RecordCodec } from '@parley/core';
 *
 * const counter: RecordCodec<number> = {
 *   kind: 'example.counter', version: 1,
 *   decode: (data) => (typeof data === 'number' ? data : undefined),
 *   encode: (value) => value,
 * };
 * const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
 * const add = (current: number | undefined, n: number) => ({ value: (current ?? 0) + n, effects: [`added ${n}`] });
 * const done = await kernel.apply('count', counter, add, 2);
 * console.log(done.ok && done.committed?.value, done.ok && done.effects); // 2 [ 'added 2' ]
 * ```
 */
export function createKernel(options: KernelOptions): Kernel {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const owner = options.owner ?? createOwnerId();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const maxBytes = options.maxRecordBytes ?? 1024 * 1024;
  if (typeof owner !== 'string' || owner.length === 0) throw invalid('owner must be a non-empty string');
  if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw invalid('graceMs must be a finite number >= 0');
  if (!(Number.isInteger(maxBytes) && maxBytes > 0))
    throw invalid('maxRecordBytes must be a positive integer');

  const written = new WrittenRecords();
  const mutate = createMutate({ store, clock, graceMs, maxBytes, written });

  const committedOf = <T>(
    key: string,
    next: KernelRecord | undefined,
    value: T | undefined,
    version: number | null,
  ): Committed<T> | undefined => {
    if (next === undefined || value === undefined || version === null) return undefined;
    const { lease, fence, deadlineAt } = next;
    const committed: Committed<T> = { key, value, storeVersion: version, lease, fence, deadlineAt };
    written.handedOut(next, committed);
    return committed;
  };

  /** The read a caller's committed copy stands for: its record as written, or rebuilt from it. */
  const basisRead = <T>(key: string, codec: RecordCodec<T>, basis: Committed<T> | null): Fresh<T> => {
    if (basis === null) return ABSENT;
    if (basis.key !== key) throw invalid(`basis is a record of ${basis.key}, not ${key}`);
    const known = written.recordOf(basis);
    const record: KernelRecord =
      known !== undefined && known.kind === codec.kind && known.version === codec.version
        ? known
        : { kind: codec.kind, version: codec.version, data: codec.encode(basis.value), ...leaseOf(basis) };
    return { ok: true, record, committed: basis, version: basis.storeVersion };
  };

  const ttlCheck = (ms: number, name: string): void => {
    if (!(Number.isFinite(ms) && ms > 0))
      throw invalid(`${name} must be a positive number of ms, got ${String(ms)}`);
  };

  const kernel: Kernel = {
    owner,

    async read(key, codec, readOptions = {}) {
      const { basis } = readOptions;
      if (basis !== undefined && basis.key !== key)
        throw invalid(`basis is a record of ${basis.key}, not ${key}`);
      let entry: StoreEntry | undefined;
      try {
        // a store that tells its version without a read: the same version is the same record
        if (basis !== undefined && versionOf(store, key) === basis.storeVersion) return basis;
        entry = await readEntry(store, key);
      } catch (err) {
        throw new KernelError('store_failed', `reading ${key} failed: ${messageOf(err)}`, {
          cause: err,
          details: { key },
        });
      }
      const read = decodeEntry(key, entry, codec);
      if (!read.ok) throw new KernelError(read.code, read.message, { details: { key } });
      return read.committed;
    },

    async apply(key, codec, step, event, applyOptions = {}) {
      const { lease, basis } = applyOptions;
      const first = basis === undefined ? undefined : basisRead(key, codec, basis);
      const attempts = applyOptions.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      const done = await mutate(
        key,
        codec,
        attempts,
        (read, now) => {
          const refused = guard(key, read.record, lease, now);
          if (refused !== undefined) return refused;
          const result = step(read.committed?.value, event, now);
          const out = { value: result.value, effects: result.effects };
          const same = result.value !== undefined && result.value === read.committed?.value;
          if (same && result.deadlineAt === undefined && applyOptions.release !== true) {
            return { write: false, next: read.record, out }; // the step changed nothing: nothing to write
          }
          // an expired lease stays in the record: a clock that jumps back makes it valid again, never free
          const keep = applyOptions.release === true ? null : (read.record?.lease ?? null);
          const deadlineAt =
            result.deadlineAt === undefined ? (read.record?.deadlineAt ?? null) : result.deadlineAt;
          // the value it was given: the data it was read with (so the data's text is written once)
          const data =
            result.value === undefined
              ? null
              : same && read.record !== undefined
                ? read.record.data
                : codec.encode(result.value);
          const next = envelope(codec, read.record, { data, lease: keep, deadlineAt });
          return { write: true, next, out };
        },
        first,
      );
      if (!done.ok) return done;
      return {
        ok: true,
        committed: committedOf(key, done.next, done.out.value, done.version),
        effects: done.out.effects,
      };
    },

    async acquire(key, codec, { ttlMs, force = false, basis }) {
      ttlCheck(ttlMs, 'ttlMs');
      const first = basis === undefined ? undefined : basisRead(key, codec, basis);
      const done = await mutate(
        key,
        codec,
        DEFAULT_MAX_ATTEMPTS,
        (read, now) => {
          const refused = force ? undefined : guard(key, read.record, undefined, now);
          if (refused !== undefined) return refused;
          const token = (read.record?.fence ?? 0) + 1;
          const lease: Lease = { key, owner, token, expiresAt: now + ttlMs };
          const next = envelope(codec, read.record, {
            lease: { owner, token, expiresAt: lease.expiresAt },
            fence: token,
          });
          return { write: true, next, out: { lease, value: read.committed?.value } };
        },
        first,
      );
      if (!done.ok) return done;
      return {
        ok: true,
        lease: done.out.lease,
        committed: committedOf(key, done.next, done.out.value, done.version),
      };
    },

    async renew(lease, { ttlMs }) {
      ttlCheck(ttlMs, 'ttlMs');
      const done = await mutate(lease.key, undefined, DEFAULT_MAX_ATTEMPTS, (read, now) => {
        const refused = guard(lease.key, read.record, lease, now);
        if (refused !== undefined || read.record === undefined) return refused as KernelRefusal;
        const expiresAt = now + ttlMs;
        const next: KernelRecord = {
          ...read.record,
          lease: { owner: lease.owner, token: lease.token, expiresAt },
        };
        return { write: true, next, out: { ...lease, expiresAt } };
      });
      return done.ok ? { ok: true, lease: done.out } : done;
    },

    async release(lease) {
      await mutate(lease.key, undefined, DEFAULT_MAX_ATTEMPTS, (read, now) => {
        const mine = guard(lease.key, read.record, lease, now) === undefined && read.record !== undefined;
        return {
          write: mine,
          next: mine ? { ...(read.record as KernelRecord), lease: null } : undefined,
          out: undefined,
        };
      });
    },

    async claim(key, effect) {
      ttlCheck(effect.leaseMs, 'leaseMs');
      const done = await mutate(key, CLAIM_RECORDS, DEFAULT_MAX_ATTEMPTS, (read, now) =>
        claimStep(key, owner, effect, read, now),
      );
      return done.ok ? done.out : done;
    },

    async settle(claim, result) {
      const done = await mutate(claim.key, CLAIM_RECORDS, DEFAULT_MAX_ATTEMPTS, (read, now) => {
        const refused = guard(claim.key, read.record, claim, now);
        return refused ?? settleStep(claim, read, result);
      });
      return done.ok ? { ok: true } : done;
    },

    async abandon(claim) {
      const done = await mutate(claim.key, CLAIM_RECORDS, DEFAULT_MAX_ATTEMPTS, (read, now) => {
        const refused = guard(claim.key, read.record, claim, now);
        return refused ?? abandonStep(claim, read);
      });
      return done.ok ? { ok: true } : done;
    },

    async list(prefix, codec, { limit = DEFAULT_LIST_LIMIT } = {}) {
      if (!(Number.isInteger(limit) && limit > 0)) throw invalid('limit must be a positive integer');
      return listRecords(store, prefix, codec, limit);
    },
  };
  return kernel;
}

/** The read a `basis: null` stands for: no record (a compare-and-set on it lands only on an absent key). */
const ABSENT = { ok: true, record: undefined, committed: undefined, version: null } as const;

function invalid(message: string): KernelError {
  return new KernelError('invalid_argument', message);
}

/** The envelope fields a committed record carries. */
function leaseOf<T>(basis: Committed<T>): Pick<KernelRecord, 'lease' | 'fence' | 'deadlineAt'> {
  return { lease: basis.lease, fence: basis.fence, deadlineAt: basis.deadlineAt };
}
