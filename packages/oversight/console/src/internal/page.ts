// One bounded page of a store listing, in key order, after a cursor: a single pass over
// `store.list(prefix)` that keeps at most `size + 1` entries, so a page costs O(n) time and
// O(size) memory however many records the prefix holds.
import type { KernelRecord, RecordCodec, Store, StoreEntry } from '@parley/core';

/** A page of entries and the cursor of the next one (`undefined`: this is the last page). */
export interface EntryPage {
  readonly entries: readonly StoreEntry[];
  readonly next: string | undefined;
}

/** The entries under `prefix` with keys after `after` that pass `accept`, the first `size` in key order. */
export async function pageOf(
  store: Store,
  prefix: string,
  after: string | undefined,
  size: number,
  accept: (entry: StoreEntry) => boolean = () => true,
): Promise<EntryPage> {
  const kept: StoreEntry[] = []; // sorted by key, at most size + 1
  for await (const entry of store.list(prefix)) {
    if (after !== undefined && entry.key <= after) continue;
    if (kept.length > size && entry.key >= (kept[size] as StoreEntry).key) continue; // full: kept[size] is the last
    if (!accept(entry)) continue;
    kept.splice(insertionPoint(kept, entry.key), 0, entry);
    if (kept.length > size + 1) kept.pop();
  }
  const entries = kept.slice(0, size);
  return { entries, next: kept.length > size ? entries[entries.length - 1]?.key : undefined };
}

/** A listed entry read through a codec: its value, `undefined` for a lease-only record, or why not. */
export type Read<T> =
  | { readonly ok: true; readonly value: T | undefined; readonly record: KernelRecord }
  | { readonly ok: false; readonly message: string };

/** Reads a listed kernel record through `codec` (the envelope's kind and version, then the data). */
export function readRecord<T>(entry: StoreEntry, codec: RecordCodec<T>): Read<T> {
  if (!isKind(entry.value, codec))
    return { ok: false, message: `not a ${codec.kind} record of format ${codec.version}` };
  const record = entry.value as unknown as KernelRecord; // kind and version checked; data by the codec
  if (record.data === null) return { ok: true, value: undefined, record };
  const value = codec.decode(record.data);
  return value === undefined
    ? { ok: false, message: `data is not a valid ${codec.kind}` }
    : { ok: true, value, record };
}

/** Whether a stored value is a kernel record of the codec's kind and version (a cheap filter). */
export function isKind(value: StoreEntry['value'], codec: RecordCodec<unknown>): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as { readonly [key: string]: unknown }; // an object, checked above
  return record.kind === codec.kind && record.version === codec.version;
}

function insertionPoint(sorted: readonly StoreEntry[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((sorted[mid] as StoreEntry).key < key) low = mid + 1;
    else high = mid;
  }
  return low;
}
