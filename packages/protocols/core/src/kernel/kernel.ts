// createKernel: fresh-read steps committed with one compare-and-set, and fenced leases in the record.
import { type Clock, systemClock } from '../clock.js';
import type { Store, StoreEntry } from '../store.js';
import { abandonStep, CLAIM_RECORDS, claimStep, settleStep } from './claims.js';
import { DEFAULT_LIST_LIMIT, eachRecord, listRecords } from './list.js';
import { createOwnerId } from './owner.js';
import { directOf } from '../internal/direct-store.js';
import { createMutate, versionOf } from './mutate.js';
import { recall } from './recall.js';
import { WrittenRecords } from './record-text.js';
import type { Kernel } from './api.js';
import type { Committed, RecordCodec } from './types.js';
import {
  acquireCheck,
  acquirePlan,
  committedRead,
  readFailed,
  applyPlan,
  basisOf,
  basisRead,
  committedOf,
  invalid,
  releasePlan,
  renewPlan,
  ttlCheck,
} from './steps.js';

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
  const { store, clock, owner, graceMs, maxBytes } = checked(options);
  const written = new WrittenRecords();
  const mutate = createMutate({ store, clock, graceMs, maxBytes, written });

  const kernel: Kernel = {
    owner,

    read: (key, codec, readOptions = {}) => readRecord(store, written, key, codec, readOptions.basis),

    async apply(key, codec, step, event, applyOptions = {}) {
      const { lease, basis } = applyOptions;
      const first = basis === undefined ? undefined : basisRead(written, key, codec, basis);
      const mutated = mutate(
        key,
        codec,
        applyOptions.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        (read, now) => applyPlan(key, codec, step, event, lease, applyOptions.release, read, now),
        first,
      );
      const done = mutated instanceof Promise ? await mutated : mutated;
      if (!done.ok) return done;
      return {
        ok: true,
        committed: committedOf(written, key, done.next, done.out.value, done.version),
        effects: done.out.effects,
        text: done.text, // written only with data: a delete has none
      };
    },

    async acquire(key, codec, { ttlMs, force = false, basis, change, lifeMs }) {
      acquireCheck(ttlMs, lifeMs, change !== undefined);
      const first = basis === undefined ? undefined : basisRead(written, key, codec, basis);
      const mutated = mutate(
        key,
        codec,
        DEFAULT_MAX_ATTEMPTS,
        (read, now) => acquirePlan(key, codec, { owner, ttlMs, force, change, lifeMs }, read, now),
        first,
        change === undefined,
      );
      const done = mutated instanceof Promise ? await mutated : mutated;
      if (!done.ok) return done;
      return {
        ok: true,
        lease: done.out.lease,
        committed: committedOf(written, key, done.next, done.out.value, done.version),
        text: done.text,
      };
    },

    async renew(lease, { ttlMs }) {
      ttlCheck(ttlMs, 'ttlMs');
      const mutated = mutate(lease.key, undefined, DEFAULT_MAX_ATTEMPTS, (read, now) =>
        renewPlan(lease, ttlMs, read, now),
      );
      const done = mutated instanceof Promise ? await mutated : mutated;
      return done.ok ? { ok: true, lease: done.out } : done;
    },

    async release(lease) {
      const mutated = mutate(lease.key, undefined, DEFAULT_MAX_ATTEMPTS, (read, now) =>
        releasePlan(lease, read, now),
      );
      if (mutated instanceof Promise) await mutated;
    },

    async claim(key, effect) {
      ttlCheck(effect.leaseMs, 'leaseMs');
      const mutated = mutate(key, CLAIM_RECORDS, DEFAULT_MAX_ATTEMPTS, (read, now) =>
        claimStep(key, owner, effect, read, now),
      );
      const done = mutated instanceof Promise ? await mutated : mutated;
      return done.ok ? done.out : done;
    },

    async settle(claim, result) {
      const mutated = mutate(claim.key, CLAIM_RECORDS, DEFAULT_MAX_ATTEMPTS, (read, now) =>
        settleStep(claim, read, result, now),
      );
      const done = mutated instanceof Promise ? await mutated : mutated;
      return done.ok ? { ok: true } : done;
    },

    async abandon(claim) {
      const mutated = mutate(claim.key, CLAIM_RECORDS, DEFAULT_MAX_ATTEMPTS, (read, now) =>
        abandonStep(claim, read, now),
      );
      const done = mutated instanceof Promise ? await mutated : mutated;
      return done.ok ? { ok: true } : done;
    },

    async list(prefix, codec, { limit = DEFAULT_LIST_LIMIT } = {}) {
      if (!(Number.isInteger(limit) && limit > 0)) throw invalid('limit must be a positive integer');
      return listRecords(store, prefix, codec, limit);
    },
    each: (prefix, codec) => eachRecord(store, prefix, codec),
  };
  return kernel;
}

/** `kernel.read`: `basis` when the store tells it still holds that version, else a read (not awaited on a memory store). */
async function readRecord<T>(
  store: Store,
  written: WrittenRecords,
  key: string,
  codec: RecordCodec<T>,
  basis: Committed<T> | undefined,
): Promise<Committed<T> | undefined> {
  if (basis !== undefined) basisOf(basis, key);
  let entry: StoreEntry | undefined;
  try {
    // a store that tells its version without a read: the same version is the same record
    if (basis !== undefined && versionOf(store, key) === basis.storeVersion) return basis;
    const direct = directOf(store);
    if (direct === undefined) entry = await store.getEntry(key);
    else {
      const known = recall(written, direct, key, codec, false); // a record this kernel wrote: its data parsed
      if (known !== undefined) return known.committed;
      entry = direct.getEntry(key);
    }
  } catch (err) {
    throw readFailed(key, err);
  }
  return committedRead(key, entry, codec);
}

/** The options with their defaults, checked. */
function checked(options: KernelOptions) {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const owner = options.owner ?? createOwnerId();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const maxBytes = options.maxRecordBytes ?? 1024 * 1024;
  if (typeof owner !== 'string' || owner.length === 0) throw invalid('owner must be a non-empty string');
  if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw invalid('graceMs must be a finite number >= 0');
  if (!(Number.isInteger(maxBytes) && maxBytes > 0))
    throw invalid('maxRecordBytes must be a positive integer');
  return { store, clock, owner, graceMs, maxBytes };
}
