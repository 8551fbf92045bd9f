// Listing the committed records under a key prefix through a codec, reporting the ones it refuses.
import type { Store } from '../store.js';
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
    for await (const entry of store.list(prefix)) {
      if (seen === limit) {
        truncated = true;
        break;
      }
      seen++;
      const read = decodeEntry(entry.key, entry, codec);
      if (!read.ok) refused.push({ key: entry.key, code: read.code, message: read.message });
      else if (read.committed !== undefined) records.push(read.committed);
    }
  } catch (err) {
    throw new KernelError('store_failed', `listing ${prefix} failed: ${messageOf(err)}`, {
      cause: err,
      details: { prefix },
    });
  }
  const byKey = (a: { key: string }, b: { key: string }): number => (a.key < b.key ? -1 : 1);
  return { records: records.sort(byKey), refused: refused.sort(byKey), truncated };
}
