// Listing the committed records under a key prefix through a codec, reporting the ones it refuses.
import type { Store, StoreEntry } from '../store.js';
import { KernelError } from './errors.js';
import { decodeEntry, messageOf } from './record.js';
import type { Committed, RecordCodec } from './types.js';

/**
 * How many stored entries `Kernel.list` reads under one prefix by default: 10,000.
 *
 * @example
 * ```ts
 * import { DEFAULT_LIST_LIMIT } from '@parley/core';
 *
 * console.log(DEFAULT_LIST_LIMIT); // 10000
 * ```
 */
export const DEFAULT_LIST_LIMIT = 10_000;

/**
 * A stored record `Kernel.list` could not read through the codec: not a kernel record, a
 * record of another kind or with data the codec rejects (`corrupt_record`), or of another format
 * version (`record_version`).
 *
 * @example
 * ```ts
 * import type { RefusedRecord } from '@parley/core';
 *
 * const refused: RefusedRecord = { key: 'run:7', code: 'record_version', message: 'run:7: record format 2 of example.run, this code reads 1' };
 * ```
 */
export interface RefusedRecord {
  readonly key: string;
  readonly code: 'corrupt_record' | 'record_version';
  readonly message: string;
}

/**
 * What `Kernel.list` found under a prefix: the records the codec reads (sorted by key), the
 * ones it refuses, and whether the listing stopped at its `limit` (then some entries were not read).
 *
 * @example
 * ```ts
 * import type { KernelList } from '@parley/core';
 *
 * const empty: KernelList<number> = { records: [], refused: [], truncated: false };
 * ```
 */
export interface KernelList<T> {
  readonly records: readonly Committed<T>[];
  readonly refused: readonly RefusedRecord[];
  readonly truncated: boolean;
}

/**
 * One record `Kernel.each` read under a prefix: committed and read through the codec (`ok: true`), or
 * refused by it (`ok: false`, with the key, the reason and a message), as `Kernel.list` reports it.
 *
 * @example
 * ```ts
 * import type { ListedRecord } from '@parley/core';
 *
 * const refused: ListedRecord<number> = { ok: false, key: 'run:7', code: 'corrupt_record', message: 'run:7: not a kernel record' };
 * console.log(refused.ok); // false
 * ```
 */
export type ListedRecord<T> =
  | { readonly ok: true; readonly committed: Committed<T> }
  | ({ readonly ok: false } & RefusedRecord);

/** An entry read through `codec`; `undefined` for a tombstone or a lease-only record. */
function listed<T>(entry: StoreEntry, codec: RecordCodec<T>): ListedRecord<T> | undefined {
  const read = decodeEntry(entry.key, entry, codec);
  if (!read.ok) return { ok: false, key: entry.key, code: read.code, message: read.message };
  return read.committed === undefined ? undefined : { ok: true, committed: read.committed };
}

const listFailed = (prefix: string, err: unknown): KernelError =>
  new KernelError('store_failed', `listing ${prefix} failed: ${messageOf(err)}`, {
    cause: err,
    details: { prefix },
  });

/**
 * Each entry under `prefix` read through `codec` as the store lists it (`undefined` for a tombstone
 * or a lease-only record); a failed listing throws `store_failed`, and a caller that stops early
 * ends the store's listing.
 */
async function* readEach<T>(
  store: Store,
  prefix: string,
  codec: RecordCodec<T>,
): AsyncGenerator<ListedRecord<T> | undefined, void, undefined> {
  const entries = store.list(prefix)[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      let next: IteratorResult<StoreEntry>;
      try {
        next = await entries.next();
      } catch (err) {
        ended = true; // a listing that threw is over
        throw listFailed(prefix, err);
      }
      if (next.done === true) {
        ended = true;
        return;
      }
      yield listed(next.value, codec);
    }
  } finally {
    if (!ended) await entries.return?.();
  }
}

/**
 * @internal Reads at most `limit` entries under `prefix`: values through `codec`, tombstones and
 * lease-only records skipped, refusals reported.
 */
export async function listRecords<T>(
  store: Store,
  prefix: string,
  codec: RecordCodec<T>,
  limit: number,
): Promise<KernelList<T>> {
  const records: Committed<T>[] = [];
  const refused: RefusedRecord[] = [];
  let seen = 0;
  let truncated = false;
  try {
    for await (const item of readEach(store, prefix, codec)) {
      if (seen === limit) {
        truncated = true;
        break;
      }
      seen++;
      if (item?.ok === false) refused.push({ key: item.key, code: item.code, message: item.message });
      else if (item !== undefined) records.push(item.committed);
    }
  } catch (err) {
    throw err instanceof KernelError ? err : listFailed(prefix, err);
  }
  const byKey = (a: { key: string }, b: { key: string }): number => (a.key < b.key ? -1 : 1);
  return { records: records.sort(byKey), refused: refused.sort(byKey), truncated };
}

/**
 * @internal Every record under `prefix` as the store lists it, one at a time: nothing is held
 * beyond the record yielded, so a caller may read a prefix of any size.
 */
export async function* eachRecord<T>(
  store: Store,
  prefix: string,
  codec: RecordCodec<T>,
): AsyncGenerator<ListedRecord<T>, void, undefined> {
  for await (const item of readEach(store, prefix, codec)) if (item !== undefined) yield item;
}
