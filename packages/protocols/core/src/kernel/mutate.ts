// The kernel's one way to change a record: read (or start from a known committed copy), decide on
// what was read, and commit with one compare-and-set; a lost race reads again and decides again.
import type { Clock } from '../clock.js';
import type { JsonValue } from '../json.js';
import { directOf } from '../internal/direct-store.js';
import type { Store, StoreEntry } from '../store.js';
import { type Decoded, decodeEntry, messageOf, refusal, tooLarge, ttlOf } from './record.js';
import { recordText, type WrittenRecords } from './record-text.js';
import type { KernelRecord, KernelRefusal, RecordCodec } from './types.js';

/** @internal What a decision over a read does: write `next` (undefined deletes), or only answer. */
export type Plan<R> =
  | { readonly write: boolean; readonly next: KernelRecord | undefined; readonly out: R }
  | KernelRefusal;
/** @internal A successful read. */
export type Fresh<T> = Extract<Decoded<T>, { ok: true }>;

/** @internal What a change committed: the decision's answer, the record written (or read) and its version. */
export type Mutated<R> =
  | {
      readonly ok: true;
      readonly out: R;
      readonly next: KernelRecord | undefined;
      readonly version: number | null;
    }
  | KernelRefusal;

/** @internal The mutate function of one kernel. */
export function createMutate(options: {
  readonly store: Store;
  readonly clock: Clock;
  readonly graceMs: number;
  readonly maxBytes: number;
  /** What this kernel last wrote per key: a later record with the same data object reuses its text. */
  readonly written: WrittenRecords;
}) {
  const { store, clock, graceMs, maxBytes, written } = options;
  /**
   * Reads, decides on the read, and commits with one compare-and-set; a lost race starts over.
   * `basis` (a read the caller holds) stands for the first read: its compare-and-set fails unless the
   * store still holds exactly that version, and the next attempt reads afresh.
   */
  return async function mutate<T, R>(
    key: string,
    codec: RecordCodec<T> | undefined,
    attempts: number,
    decide: (read: Fresh<T>, now: number) => Plan<R>,
    basis?: Fresh<T>,
  ): Promise<Mutated<R>> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      // a memory store is read and written without a promise, and keeps the text checked for size
      const direct = directOf(store);
      let read: Decoded<T>;
      if (attempt === 0 && basis !== undefined) read = basis;
      else {
        try {
          const entry = direct === undefined ? await store.getEntry(key) : direct.getEntry(key);
          read = decodeEntry(key, entry, codec);
        } catch (err) {
          return refusal('store_failed', key, `reading ${key} failed: ${messageOf(err)}`, err);
        }
      }
      if (!read.ok) return refusal(read.code, key, read.message);
      const now = clock.now();
      const plan = decide(read, now);
      if (read === basis && ('ok' in plan || !plan.write)) {
        basis = undefined; // a refusal or an answer without a write rests on a fresh read, never a held copy
        attempt--;
        continue;
      }
      if ('ok' in plan) return plan;
      if (plan.next === undefined && read.version === null && read === basis) {
        basis = undefined; // deleting what a basis says is absent: only a fresh read can say so
        attempt--;
        continue;
      }
      if (!plan.write || (plan.next === undefined && read.version === null)) {
        return { ok: true, out: plan.out, next: read.record, version: read.version };
      }
      const next = plan.next;
      // a kernel record is plain JSON by construction
      const json = next as unknown as JsonValue | undefined;
      const made = next === undefined ? undefined : recordText(key, next, written);
      const text = made?.text;
      if (text !== undefined && tooLarge(text, maxBytes)) {
        return refusal('too_large', key, `the record of ${key} is larger than ${maxBytes} bytes`);
      }
      const ttlMs = next === undefined ? undefined : ttlOf(next, now, graceMs);
      try {
        const setOptions = ttlMs === undefined ? undefined : { ttlMs };
        const cas =
          direct === undefined
            ? await store.compareAndSet(key, read.version, json, setOptions)
            : direct.compareAndSet(key, read.version, json, text, setOptions, made?.checked);
        if (cas.ok) {
          // the store took it, so the data is plain JSON: its text serves the next record that carries it
          written.wrote(key, next, made?.dataText);
          return { ok: true, out: plan.out, next, version: cas.version };
        }
      } catch (err) {
        return refusal('store_failed', key, `writing ${key} failed: ${messageOf(err)}`, err);
      }
    }
    return refusal('write_conflict', key, `${key} kept changing: gave up after ${attempts} attempts`);
  };
}

/**
 * @internal The version `store` holds at `key` when it can tell without reading the value (a memory
 * store), otherwise `undefined`.
 */
export function versionOf(store: Store, key: string): number | null | undefined {
  return directOf(store)?.versionOf(key);
}

/** @internal `store.getEntry(key)`, without a promise when the store is a memory store. */
export function readEntry(
  store: Store,
  key: string,
): StoreEntry | undefined | Promise<StoreEntry | undefined> {
  const direct = directOf(store);
  return direct === undefined ? store.getEntry(key) : direct.getEntry(key);
}
