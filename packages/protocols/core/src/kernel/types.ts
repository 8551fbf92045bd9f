// The kernel's public shapes: records, leases, steps, claims and refusals (types only).
import type { JsonValue } from '../json.js';

/**
 * How a package keeps its record in the kernel: its kind tag, its format version, and a check of the data.
 *
 * `encode` must return a non-null JSON value (the kernel stores `null` as "no value yet").
 *
 * @example
 * ```ts
 * import type { RecordCodec } from '@parley/core';
 *
 * const counter: RecordCodec<number> = {
 *   kind: 'example.counter',
 *   version: 1,
 *   decode: (data) => (typeof data === 'number' ? data : undefined),
 *   encode: (value) => value,
 * };
 * ```
 */
export interface RecordCodec<T> {
  /** The record's kind, e.g. `parley.pipeline.run`; a record of another kind is `corrupt_record`. */
  readonly kind: string;
  /** The record format; a stored record of another version is refused (`record_version`), never overwritten. */
  readonly version: number;
  /** The value of stored data, or `undefined` when it is not one (`corrupt_record`). */
  decode(data: unknown): T | undefined;
  /** The stored data of a value: plain JSON, never `null`. */
  encode(value: T): JsonValue;
  /**
   * The JSON text of `data`, a value `encode` returned, when the codec can write it for less than
   * `JSON.stringify` does (from the kept texts of parts it wrote before, say); `undefined` (or
   * anything but a non-empty string, or a throw) leaves it to `JSON.stringify`. The kernel stores
   * this text as the record's data and may later read it back in place of `data`, so it must read
   * back (`JSON.parse`) as `data` does: a text that does not is the codec's bug. The store still
   * checks `data` as plain JSON. Optional.
   */
  text?(data: JsonValue): string | undefined;
  /**
   * Reads what the package stored before it kept its record in the kernel (a value that is no kernel
   * record at all): the value it stands for, or `undefined` (then `corrupt_record`). The value is read
   * as committed, with no lease and no deadline, and the next write stores it as a kernel record with
   * one compare-and-set on the old value's version. Optional: without it such a value is `corrupt_record`.
   */
  legacy?(stored: unknown, storeVersion: number): T | undefined;
}

/**
 * A lease as a record keeps it: its owner, its fencing token and its absolute expiry.
 *
 * @example
 * ```ts
 * import type { LeaseState } from '@parley/core';
 *
 * const lease: LeaseState = { owner: 'worker-a', token: 3, expiresAt: 1_700_000_030_000 };
 * ```
 */
export interface LeaseState {
  readonly owner: string;
  /** Monotonic per record: a write made under an older token fails. */
  readonly token: number;
  /** Epoch ms; the lease is valid while `now < expiresAt`. */
  readonly expiresAt: number;
}

/**
 * What the store holds at a key the kernel manages (plain JSON).
 *
 * @example
 * ```ts
 * import type { KernelRecord } from '@parley/core';
 *
 * const record: KernelRecord = { kind: 'example.counter', version: 1, data: 3, lease: null, fence: 0, deadlineAt: null };
 * ```
 */
export interface KernelRecord {
  readonly kind: string;
  readonly version: number;
  /** The codec's encoding of the value, or `null` while only a lease is stored. */
  readonly data: JsonValue;
  readonly lease: LeaseState | null;
  /** The last fencing token handed out for this record. */
  readonly fence: number;
  /** Absolute epoch ms the record must live until (plus the kernel's grace); `null`: no expiry. */
  readonly deadlineAt: number | null;
}

/**
 * A held lease: the key it guards, its owner, its fencing token and its absolute expiry.
 *
 * @example
 * ```ts
 * import type { Lease } from '@parley/core';
 *
 * const lease: Lease = { key: 'run:1', owner: 'worker-a', token: 1, expiresAt: 1_700_000_030_000 };
 * ```
 */
export interface Lease extends LeaseState {
  readonly key: string;
}

/**
 * A record as committed: its value, the store version a compare-and-set must name, its lease and deadline.
 *
 * @example
 * ```ts
 * import type { Committed } from '@parley/core';
 *
 * const committed: Committed<number> = { key: 'n', value: 1, storeVersion: 4, lease: null, fence: 0, deadlineAt: null };
 * ```
 */
export interface Committed<T> {
  readonly key: string;
  readonly value: T;
  readonly storeVersion: number;
  readonly lease: LeaseState | null;
  readonly fence: number;
  readonly deadlineAt: number | null;
}

/**
 * What a step returns: the next value (`undefined` deletes the record), the effects to perform,
 * and optionally a new absolute deadline (omitted: the stored one stays).
 *
 * @example
 * ```ts
 * import type { StepResult } from '@parley/core';
 *
 * const result: StepResult<number, 'notify'> = { value: 2, effects: ['notify'], deadlineAt: null };
 * ```
 */
export interface StepResult<T, X> {
  readonly value: T | undefined;
  readonly effects: readonly X[];
  readonly deadlineAt?: number | null;
}

/**
 * A package rule as a pure function of the committed value, an event and the time.
 *
 * @example
 * ```ts
 * import type { KernelStep } from '@parley/core';
 *
 * const add: KernelStep<number, number, never> = (current, n) => ({ value: (current ?? 0) + n, effects: [] });
 * ```
 */
export type KernelStep<T, E, X> = (current: T | undefined, event: E, now: number) => StepResult<T, X>;

/**
 * The codes of a {@link KernelRefusal}.
 *
 * @example
 * ```ts
 * import { KERNEL_REFUSAL_CODES } from '@parley/core';
 *
 * console.log(KERNEL_REFUSAL_CODES.includes('lease_lost')); // true
 * ```
 */
export const KERNEL_REFUSAL_CODES = [
  'write_conflict',
  'lease_held',
  'lease_lost',
  'corrupt_record',
  'record_version',
  'store_failed',
  'claim_conflict',
  'too_large',
] as const;

/**
 * A code of {@link KernelRefusal}.
 *
 * @example
 * ```ts
 * import type { KernelRefusalCode } from '@parley/core';
 *
 * const code: KernelRefusalCode = 'write_conflict';
 * ```
 */
export type KernelRefusalCode = (typeof KERNEL_REFUSAL_CODES)[number];

/**
 * The kernel's "no": what was refused, why, and for which key. Nothing was written.
 *
 * @example
 * ```ts
 * import type { KernelRefusal } from '@parley/core';
 *
 * const refusal: KernelRefusal = { ok: false, code: 'lease_held', message: 'run:1 is leased by worker-b', key: 'run:1' };
 * ```
 */
export interface KernelRefusal {
  readonly ok: false;
  readonly code: KernelRefusalCode;
  readonly message: string;
  readonly key: string;
  /** What the store threw, for `store_failed` (absent otherwise). */
  readonly cause?: unknown;
}
