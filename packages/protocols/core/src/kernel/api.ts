// The kernel's interface and its claim shapes (types only).
import type { JsonValue } from '../json.js';
import type { KernelList, ListedRecord } from './list.js';
import type { Committed, KernelRefusal, KernelStep, Lease, RecordCodec } from './types.js';

/**
 * A claim this owner holds: settle it with its result once the effect ran.
 *
 * @example
 * ```ts
 * import type { HeldClaim } from '@parley/core';
 *
 * const claim: HeldClaim = { key: 'call:1', id: 'send-invoice', owner: 'worker-a', token: 1, expiresAt: 1_700_000_030_000 };
 * ```
 */
export interface HeldClaim extends Lease {
  readonly id: string;
}

/**
 * What {@link Kernel.claim} found: run the effect now, its stored result, another owner running it,
 * an outcome nobody knows (never re-run), the same id with other content, or a refusal.
 *
 * @example
 * ```ts
 * import type { ClaimResult } from '@parley/core';
 *
 * function describe(result: ClaimResult): string {
 *   return 'status' in result ? result.status : result.code;
 * }
 * ```
 */
export type ClaimResult =
  | { readonly status: 'claimed'; readonly claim: HeldClaim }
  | { readonly status: 'settled'; readonly result: JsonValue }
  | { readonly status: 'in_flight'; readonly owner: string; readonly expiresAt: number }
  | { readonly status: 'unknown'; readonly owner: string; readonly claimedAt: number }
  | { readonly status: 'conflict'; readonly message: string }
  | KernelRefusal;

/**
 * What {@link Kernel.claim} is asked to claim: the effect's id, a digest of its content, how long
 * the claim's lease lasts, and how long its record outlives it (default {@link DEFAULT_CLAIM_RETAIN_MS}).
 *
 * @example
 * ```ts
 * import type { ClaimRequest } from '@parley/core';
 *
 * const request: ClaimRequest = { id: 'send-invoice-42', digest: 'sha256:ab12', leaseMs: 30_000 };
 * ```
 */
export interface ClaimRequest {
  readonly id: string;
  readonly digest: string;
  readonly leaseMs: number;
  readonly retainMs?: number;
}

/**
 * The result of {@link Kernel.apply}: the committed record (`undefined` when deleted or absent) and
 * the step's effects, or a refusal. `text` is the JSON text of the committed record's data (the
 * codec's `encode` of its value) as this call wrote it; it is `undefined` when the call wrote
 * nothing (the step kept the value) or deleted the record. A caller that keeps a record for long
 * can keep this text instead of the decoded value and decode it when it is needed, without a read.
 *
 * @example
 * ```ts
 * import type { ApplyResult } from '@parley/core';
 *
 * function value(result: ApplyResult<number, never>): number | undefined {
 *   return result.ok ? result.committed?.value : undefined;
 * }
 * ```
 */
export type ApplyResult<T, X> =
  | {
      readonly ok: true;
      readonly committed: Committed<T> | undefined;
      readonly effects: readonly X[];
      readonly text?: string | undefined;
    }
  | KernelRefusal;

/**
 * The durable kernel over a Store: fresh-read steps committed with one compare-and-set, fenced
 * leases inside the record they guard, and claims before effects. See {@link createKernel}.
 *
 * @example
 * ```ts
 * import { createKernel, createMemoryStore, type Kernel } from '@parley/core';
 *
 * const kernel: Kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
 * console.log(kernel.owner); // 'worker-a'
 * ```
 */
export interface Kernel {
  readonly owner: string;
  /**
   * The committed record at `key`, or `undefined`. `basis` (a record this caller read or committed
   * before) is returned as it is, without reading the value, when the store tells (as a memory store
   * does) that it still holds exactly that version; otherwise the record is read.
   * @throws KernelError `corrupt_record`, `record_version`, `store_failed`; `invalid_argument` for a
   * `basis` of another key.
   */
  read<T>(
    key: string,
    codec: RecordCodec<T>,
    options?: { readonly basis?: Committed<T> },
  ): Promise<Committed<T> | undefined>;
  /**
   * Runs `step` on a fresh read and commits its value with one compare-and-set on the version read;
   * a lost race re-reads and re-runs it (at most `maxAttempts`, default {@link DEFAULT_MAX_ATTEMPTS}).
   * With `lease`, the write is fenced: it fails with `lease_lost` once the record's lease is another's.
   * Without one, a record under a valid lease is refused with `lease_held`. `release: true` ends the
   * lease in the same write. A step that returns the value it was given (the same object) and no
   * `deadlineAt` writes nothing. `basis` (a record this caller read or committed before) saves the
   * first read: the step runs on it and its compare-and-set names its version, so it lands only if
   * the store still holds exactly that record; otherwise (and for an answer without a write) the
   * step runs again on a fresh read. `basis: null` says the caller expects no record (a key under
   * an id it just made): the step runs on none, and its write lands only where the key is absent.
   */
  apply<T, E, X>(
    key: string,
    codec: RecordCodec<T>,
    step: KernelStep<T, E, X>,
    event: E,
    options?: {
      readonly lease?: Lease;
      readonly maxAttempts?: number;
      readonly release?: boolean;
      readonly basis?: Committed<T> | null;
    },
  ): Promise<ApplyResult<T, X>>;
  /**
   * Takes the lease of `key` (absent records too) with a new fencing token; `lease_held` while a lease
   * on it is valid, this owner's included (renew that one instead). `force` takes it anyway (an
   * operator's take-over of a holder known dead): the old holder is fenced off. `basis` saves the
   * read as in {@link Kernel.apply}: the lease is written on it with a compare-and-set that lands only
   * if the store still holds exactly that record; otherwise (and for a refusal) it is taken on a
   * fresh read. `basis: null` says the caller expects no record (a key it just made, a step not yet
   * begun): the lease is written without a read and lands only where the key is absent; where it is
   * not, the lease is decided on a fresh read. `change` (run on the read once the lease is granted,
   * with the new lease and the time) returns the value to write with the lease in the same
   * compare-and-set: a lease and the first change under it in one write. It returns the value it was
   * given, or `undefined`, to keep the value as read; a lost race runs it again on a fresh read.
   * `lifeMs` (only with `change`) gives a changed record its deadline, `now + lifeMs`, in that write,
   * as a step's `deadlineAt` does in {@link Kernel.apply}; a kept value keeps its deadline.
   * @throws KernelError `invalid_argument` for a `ttlMs` or `lifeMs` that is not a positive number of
   * ms, or a `lifeMs` without a `change`.
   *
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
   * await kernel.apply('count', counter, () => ({ value: 1, effects: [] }), null);
   * // the lease and the change made under it, in one write
   * const taken = await kernel.acquire('count', counter, { ttlMs: 30_000, change: (n) => (n ?? 0) + 1 });
   * console.log(taken.ok && [taken.lease.token, taken.committed?.value]); // [ 1, 2 ]
   * ```
   */
  acquire<T>(
    key: string,
    codec: RecordCodec<T>,
    options: {
      readonly ttlMs: number;
      readonly force?: boolean;
      readonly basis?: Committed<T> | null;
      readonly change?: (current: T | undefined, lease: Lease, now: number) => T | undefined;
      readonly lifeMs?: number;
    },
  ): Promise<
    | {
        readonly ok: true;
        readonly lease: Lease;
        readonly committed: Committed<T> | undefined;
        /** The JSON text of the committed record's data as this call wrote it (see {@link ApplyResult}). */
        readonly text?: string | undefined;
      }
    | KernelRefusal
  >;
  /** Extends a valid lease to `now + ttlMs`; `lease_lost` once it expired or another owner holds it. */
  renew(
    lease: Lease,
    options: { readonly ttlMs: number; readonly force?: boolean },
  ): Promise<{ readonly ok: true; readonly lease: Lease } | KernelRefusal>;
  /** Gives a lease up (best effort: a lease already lost, or a failing store, is ignored; it expires anyway). */
  release(lease: Lease): Promise<void>;
  /** Claims an effect before running it (see {@link ClaimResult}). */
  claim(key: string, effect: ClaimRequest): Promise<ClaimResult>;
  /** Stores the result of a claimed effect; `lease_lost` when the claim expired or was fenced off. */
  settle(claim: HeldClaim, result: JsonValue): Promise<{ readonly ok: true } | KernelRefusal>;
  /**
   * Gives back a claim whose effect did NOT run, so a later claim of the key gets `claimed` (with a
   * new fencing token) instead of `unknown`. Use it when the effect was refused before it started.
   * `lease_lost` once the claim expired (others may have reported its outcome as unknown) or was
   * fenced off; `claim_conflict` when the record holds another claim.
   *
   * @example
   * ```ts
   * import { createKernel, createMemoryStore } from '@parley/core';
   *
   * const kernel = createKernel({ store: createMemoryStore(), owner: 'worker-a' });
   * const effect = { id: 'send-invoice-42', digest: 'sha256:ab12', leaseMs: 30_000 };
   * const first = await kernel.claim('call:42', effect);
   * if ('status' in first && first.status === 'claimed') {
   *   console.log(await kernel.abandon(first.claim)); // { ok: true }
   * }
   * const again = await kernel.claim('call:42', effect);
   * console.log('status' in again && again.status); // 'claimed'
   * ```
   */
  abandon(claim: HeldClaim): Promise<{ readonly ok: true } | KernelRefusal>;
  /**
   * The committed records whose keys start with `prefix`, read through `codec` and sorted by key;
   * records the codec refuses (another kind or version, corrupt data) are reported in `refused`, never
   * thrown, and tombstones or lease-only records are skipped. At most `limit` entries are read
   * (default {@link DEFAULT_LIST_LIMIT}); past it `truncated` is `true`.
   *
   * @throws KernelError `store_failed` when the store's listing fails, `invalid_argument` for a bad `limit`.
   * @example
   * ```ts
   * import { createKernel, createMemoryStore, type RecordCodec } from '@parley/core';
   *
   * const counter: RecordCodec<number> = {
   *   kind: 'example.counter', version: 1,
   *   decode: (data) => (typeof data === 'number' ? data : undefined),
   *   encode: (value) => value,
   * };
   * const store = createMemoryStore();
   * const kernel = createKernel({ store, owner: 'worker-a' });
   * await kernel.apply('count:a', counter, () => ({ value: 1, effects: [] }), null);
   * await store.set('count:b', { kind: 'example.counter', version: 2, data: 5, lease: null, fence: 0, deadlineAt: null });
   * const found = await kernel.list('count:', counter);
   * console.log(found.records.map((r) => [r.key, r.value])); // [ [ 'count:a', 1 ] ]
   * console.log(found.refused.map((r) => [r.key, r.code])); // [ [ 'count:b', 'record_version' ] ]
   * ```
   */
  list<T>(
    prefix: string,
    codec: RecordCodec<T>,
    options?: { readonly limit?: number },
  ): Promise<KernelList<T>>;
  /**
   * The records whose keys start with `prefix`, one at a time as the store lists them (unsorted, no
   * limit), each read through `codec` as {@link Kernel.list} reads them: a committed record
   * (`ok: true`) or one the codec refuses (`ok: false`, never thrown); tombstones and lease-only
   * records are skipped. Nothing is held but the record yielded, so a caller can walk a prefix of any
   * size; stopping early (`break`) ends the store's listing.
   *
   * @throws KernelError `store_failed` when the store's listing fails (from the iteration).
   * @example
   * ```ts
   * import { createKernel, createMemoryStore, type RecordCodec } from '@parley/core';
   *
   * const counter: RecordCodec<number> = {
   *   kind: 'example.counter', version: 1,
   *   decode: (data) => (typeof data === 'number' ? data : undefined),
   *   encode: (value) => value,
   * };
   * const store = createMemoryStore();
   * const kernel = createKernel({ store, owner: 'worker-a' });
   * await kernel.apply('count:a', counter, () => ({ value: 1, effects: [] }), null);
   * await store.set('count:b', 'not a record');
   * for await (const item of kernel.each('count:', counter)) {
   *   console.log(item.ok ? [item.committed.key, item.committed.value] : [item.key, item.code]);
   * }
   * // [ 'count:a', 1 ]
   * // [ 'count:b', 'corrupt_record' ]
   * ```
   */
  each<T>(prefix: string, codec: RecordCodec<T>): AsyncIterable<ListedRecord<T>>;
}
