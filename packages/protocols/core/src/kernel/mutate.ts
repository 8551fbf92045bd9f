// The kernel's one way to change a record: read (or start from a known committed copy), decide on
// what was read, and commit with one compare-and-set; a lost race reads again and decides again.
import type { Clock } from '../clock.js';
import type { JsonValue } from '../json.js';
import { type DirectStore, directOf } from '../internal/direct-store.js';
import type { Store, StoreSetOptions } from '../store.js';
import { type Decoded, decodeEntry, messageOf, refusal, tooLarge, ttlOf } from './record.js';
import { recall } from './recall.js';
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
      /** The JSON text of `next`'s data, when this change wrote it (and it has an envelope). */
      readonly text?: string | undefined;
    }
  | KernelRefusal;

/** A write a decision asks for: the record, its JSON (and text when composed), and its store TTL. */
interface Write<R> {
  readonly out: R;
  readonly next: KernelRecord | undefined;
  readonly json: JsonValue | undefined;
  readonly made: ReturnType<typeof recordText> | undefined;
  readonly setOptions: StoreSetOptions | undefined;
  /** The version read: the compare-and-set lands only over it. */
  readonly expected: number | null;
}

/** What one attempt found: decide again on a fresh read, the final answer, or a write to commit. */
type Attempt<R> = typeof AGAIN | Mutated<R> | Write<R>;
const AGAIN = Symbol('again');

/** What the mutate loop of one kernel works with. */
interface Context {
  readonly store: Store;
  readonly clock: Clock;
  readonly graceMs: number;
  readonly maxBytes: number;
  /** What this kernel last wrote per key: a later record with the same data object reuses its text. */
  readonly written: WrittenRecords;
}

/**
 * @internal The mutate function of one kernel: reads, decides on the read, and commits with one
 * compare-and-set; a lost race starts over. `basis` (a read the caller holds) stands for the first
 * read: its compare-and-set fails unless the store still holds exactly that version, and the next
 * attempt reads afresh. On a memory store (reached without a promise) the whole loop, retries
 * included, runs synchronously and its answer is returned as it is; on any other store it is a promise.
 * There, a record this kernel wrote and the store still holds is read from what was written (only
 * its data parsed); `opaque` says `decide` hands the data to no caller's code before writing it:
 * so it is without a codec (a lease renewed or given back), and `acquire` says so without a `change`.
 */
export function createMutate(context: Context) {
  return function mutate<T, R>(
    key: string,
    codec: RecordCodec<T> | undefined,
    attempts: number,
    decide: (read: Fresh<T>, now: number) => Plan<R>,
    basis?: Fresh<T>,
    opaque = codec === undefined,
  ): Mutated<R> | Promise<Mutated<R>> {
    const direct = directOf(context.store);
    return direct === undefined
      ? mutateAsync(context, key, codec, attempts, decide, basis)
      : mutateDirect(context, direct, key, codec, attempts, decide, basis, opaque);
  };
}

/** Decides on one read: a refusal or an answer, a write to commit, or AGAIN (a basis that cannot stand). */
function attempt<T, R>(
  { clock, graceMs, maxBytes, written }: Context,
  key: string,
  codec: RecordCodec<T> | undefined,
  read: Decoded<T>,
  basis: Fresh<T> | undefined,
  decide: (read: Fresh<T>, now: number) => Plan<R>,
): Attempt<R> {
  if (!read.ok) return refusal(read.code, key, read.message);
  const now = clock.now();
  const plan = decide(read, now);
  // a refusal or an answer without a write rests on a fresh read, never a held copy
  if (read === basis && ('ok' in plan || !plan.write)) return AGAIN;
  if ('ok' in plan) return plan;
  if (plan.next === undefined && read.version === null) {
    // deleting what a basis says is absent: only a fresh read can say so
    return read === basis ? AGAIN : { ok: true, out: plan.out, next: read.record, version: null };
  }
  if (!plan.write) return { ok: true, out: plan.out, next: read.record, version: read.version };
  const next = plan.next;
  const made = next === undefined ? undefined : recordText(key, next, written, codec);
  if (made !== undefined && tooLarge(made.text, maxBytes)) {
    return refusal('too_large', key, `the record of ${key} is larger than ${maxBytes} bytes`);
  }
  const ttlMs = next === undefined ? undefined : ttlOf(next, now, graceMs);
  // a kernel record is plain JSON by construction
  const json = next as unknown as JsonValue | undefined;
  const setOptions = ttlMs === undefined ? undefined : { ttlMs };
  return { out: plan.out, next, json, made, setOptions, expected: read.version };
}

/** The answer of a write the store took: its data's text serves the next record that carries it. */
function committed<R>(written: WrittenRecords, key: string, write: Write<R>, version: number): Mutated<R> {
  written.wrote(key, write.next, write.made?.dataText, version);
  return { ok: true, out: write.out, next: write.next, version, text: write.made?.dataText };
}

/** The loop on a memory store: no promise, no await. */
function mutateDirect<T, R>(
  context: Context,
  direct: DirectStore,
  key: string,
  codec: RecordCodec<T> | undefined,
  attempts: number,
  decide: (read: Fresh<T>, now: number) => Plan<R>,
  basis: Fresh<T> | undefined,
  opaque: boolean,
): Mutated<R> {
  const { written } = context;
  for (let n = 0; n < attempts; n++) {
    let read: Decoded<T>;
    if (n === 0 && basis !== undefined) read = basis;
    else {
      try {
        read = recall(written, direct, key, codec, opaque) ?? decodeEntry(key, direct.getEntry(key), codec);
      } catch (err) {
        return readRefusal(key, err);
      }
    }
    const found = attempt(context, key, codec, read, basis, decide);
    if (found === AGAIN) {
      basis = undefined;
      n--;
      continue;
    }
    if ('ok' in found) return found;
    try {
      const { json, made, setOptions, expected } = found;
      const cas = direct.compareAndSet(key, expected, json, made?.text, setOptions, made?.checked);
      if (cas.ok) return committed(written, key, found, cas.version);
    } catch (err) {
      return writeRefusal(key, err);
    }
  }
  return conflict(key, attempts);
}

/** The same loop on any other store, each read and write awaited. */
async function mutateAsync<T, R>(
  context: Context,
  key: string,
  codec: RecordCodec<T> | undefined,
  attempts: number,
  decide: (read: Fresh<T>, now: number) => Plan<R>,
  basis: Fresh<T> | undefined,
): Promise<Mutated<R>> {
  const { store } = context;
  for (let n = 0; n < attempts; n++) {
    let read: Decoded<T>;
    if (n === 0 && basis !== undefined) read = basis;
    else {
      try {
        read = decodeEntry(key, await store.getEntry(key), codec);
      } catch (err) {
        return readRefusal(key, err);
      }
    }
    const found = attempt(context, key, codec, read, basis, decide);
    if (found === AGAIN) {
      basis = undefined;
      n--;
      continue;
    }
    if ('ok' in found) return found;
    try {
      const cas = await store.compareAndSet(key, found.expected, found.json, found.setOptions);
      if (cas.ok) return committed(context.written, key, found, cas.version);
    } catch (err) {
      return writeRefusal(key, err);
    }
  }
  return conflict(key, attempts);
}

const readRefusal = (key: string, err: unknown): KernelRefusal =>
  refusal('store_failed', key, `reading ${key} failed: ${messageOf(err)}`, err);
const writeRefusal = (key: string, err: unknown): KernelRefusal =>
  refusal('store_failed', key, `writing ${key} failed: ${messageOf(err)}`, err);
const conflict = (key: string, attempts: number): KernelRefusal =>
  refusal('write_conflict', key, `${key} kept changing: gave up after ${attempts} attempts`);

/**
 * @internal The version `store` holds at `key` when it can tell without reading the value (a memory
 * store), otherwise `undefined`.
 */
export function versionOf(store: Store, key: string): number | null | undefined {
  return directOf(store)?.versionOf(key);
}
