// The JSON text of a kernel record, written once per data: a record whose data this kernel wrote
// before (a lease taken or given back, a deadline moved) reuses the data's text instead of
// serialising and checking it again.
import type { Checked } from '../internal/direct-store.js';
import { hasEnvelopeKeys } from './record.js';
import type { Committed, KernelRecord, LeaseState, RecordCodec } from './types.js';

/** @internal How many keys' last records one kernel remembers (the least recently written is forgotten). */
export const MAX_WRITTEN_RECORDS = 64;

/** @internal What one kernel last wrote at a key. */
export interface Written {
  record: KernelRecord;
  /** The JSON text of `record.data`, as the store took it. */
  dataText: string | undefined;
  /** The committed copy this kernel handed out for `record`, when it made one. */
  committed: Committed<unknown> | undefined;
  /** The store version the write got (`undefined`: unknown). */
  storeVersion: number | undefined;
  /**
   * The lease written, as it was when the write was taken (the record's own object may be handed
   * out): its owner (`null`: no lease), token and expiry.
   */
  leaseOwner: string | null;
  leaseToken: number;
  leaseExpiresAt: number;
}

/**
 * @internal The record one kernel last wrote at each key (at most {@link MAX_WRITTEN_RECORDS} keys),
 * with its data's text. A later record of that key that carries the very same data object (a lease
 * taken or given back, a step that returned the value it was given) has the same data, so its text
 * is reused; the committed copy handed out for it stands for that record as a basis.
 */
export class WrittenRecords {
  private byKey = new Map<string, Written>();
  /** Keys forgotten since `byKey` was last made anew (see churn-map.ts: V8 keeps them otherwise). */
  private forgotten = 0;
  /** The key written last: already at the end of `byKey`'s order, so written again in place. */
  private last: string | undefined;

  /** The text of `data` when it is the data this kernel last wrote at `key`. */
  textOf(key: string, data: unknown): string | undefined {
    const last = this.byKey.get(key);
    return last !== undefined && last.record.data === data ? last.dataText : undefined;
  }

  /** What this kernel last wrote at `key`, when it remembers it. */
  lastOf(key: string): Written | undefined {
    return this.byKey.get(key);
  }

  /**
   * Remembers what a write committed at `key` (`undefined`: deleted) and the store version it got.
   */
  wrote(
    key: string,
    record: KernelRecord | undefined,
    dataText: string | undefined,
    storeVersion?: number,
  ): void {
    if (record === undefined) {
      this.forget(key);
      if (key === this.last) this.last = undefined;
      return;
    }
    const found = this.byKey.get(key);
    const moved = key !== this.last;
    if (moved) {
      this.forget(key); // moved to the end: the least recently written is forgotten first
      this.last = key;
    }
    if (found !== undefined) {
      // written again: the entry is reused, not replaced (and put back at the end when it moved)
      found.record = record;
      found.dataText = dataText;
      found.committed = undefined;
      found.storeVersion = storeVersion;
      noteLease(found, record.lease);
      if (moved) this.add(key, found);
      return;
    }
    const entry: Written = {
      record,
      dataText,
      committed: undefined,
      storeVersion,
      leaseOwner: null,
      leaseToken: 0,
      leaseExpiresAt: 0,
    };
    noteLease(entry, record.lease);
    this.add(key, entry);
    if (this.byKey.size > MAX_WRITTEN_RECORDS) {
      for (const oldest of this.byKey.keys()) {
        this.forget(oldest);
        break;
      }
    }
  }

  private forget(key: string): void {
    if (this.byKey.delete(key)) this.forgotten++;
  }

  /**
   * Adds `key` last. After as many keys forgotten as the cap, the entries go into a new `Map` first:
   * V8 keeps what a busy `Map` held alive through its old hash tables (see churn-map.ts).
   */
  private add(key: string, entry: Written): void {
    if (this.forgotten >= MAX_WRITTEN_RECORDS) {
      this.byKey = new Map(this.byKey);
      this.forgotten = 0;
    }
    this.byKey.set(key, entry);
  }

  /** Notes the committed copy handed out for `record`, the last one written at its key. */
  handedOut(record: KernelRecord, committed: Committed<unknown>): void {
    const last = this.byKey.get(committed.key);
    if (last?.record === record) last.committed = committed;
  }

  /** The record `basis` was handed out for, when it is still the last one written at its key. */
  recordOf(basis: Committed<unknown>): KernelRecord | undefined {
    const last = this.byKey.get(basis.key);
    return last?.committed === basis ? last.record : undefined;
  }
}

/** Notes `lease`'s fields as they are now in `entry`. */
function noteLease(entry: Written, lease: LeaseState | null): void {
  entry.leaseOwner = lease === null ? null : lease.owner;
  entry.leaseToken = lease === null ? 0 : lease.token;
  entry.leaseExpiresAt = lease === null ? 0 : lease.expiresAt;
}

/**
 * @internal `JSON.stringify(record)`, with the data's text taken from `texts` when this kernel wrote
 * that data object before, or else from `codec.text` when the codec writes one. `dataText` is the
 * data's text when it was serialised now (to remember once the store took it); `checked` says which
 * parts were checked as plain JSON before.
 * `undefined` when JSON.stringify throws (a cycle, a bigint): the store refuses the record, naming where.
 */
export function recordText(
  key: string,
  record: KernelRecord,
  written: WrittenRecords,
  codec?: RecordCodec<unknown>,
): { readonly text: string; readonly dataText: string | undefined; readonly checked: Checked } | undefined {
  const data: unknown = record.data;
  const envelope =
    typeof data === 'object' && data !== null && hasEnvelopeKeys(record) ? envelopeText(record) : undefined;
  if (envelope === undefined) {
    const text = stringified(record);
    return text === undefined ? undefined : { text, dataText: undefined, checked: 'none' };
  }
  const known = written.textOf(key, data);
  const dataText = known ?? codecText(codec, record) ?? stringified(data);
  if (dataText === undefined) return undefined;
  const text = `${envelope[0]}${dataText}${envelope[1]}`;
  // the envelope's parts are checked plain below, and known data was checked when first written
  return { text, dataText, checked: known === undefined ? 'envelope' : 'all' };
}

/**
 * The record's JSON before and after its data, written without a serialiser: the envelope holds
 * only the kernel's own strings (kind, owner) and numbers. `undefined` when a part is not plain
 * (a string that needs escaping, a number that is not finite, a lease of another shape).
 */
function envelopeText(record: KernelRecord): readonly [string, string] | undefined {
  const { kind, version, lease, fence, deadlineAt } = record;
  const head = headOf(kind, version);
  if (head === undefined || !(finite(fence) && (deadlineAt === null || finite(deadlineAt)))) return undefined;
  let leaseText = 'null';
  if (lease !== null) {
    const { owner, token, expiresAt } = lease;
    if (!(safe(owner) && finite(token) && finite(expiresAt) && Object.keys(lease).length === 3))
      return undefined;
    leaseText = `{"owner":"${owner}","token":${token},"expiresAt":${expiresAt}}`;
  }
  return [head, `,"lease":${leaseText},"fence":${fence},"deadlineAt":${deadlineAt}}`];
}

/** How many kinds' heads are kept; a kernel writes a few kinds, so the cache is emptied only when it fills. */
const MAX_HEADS = 64;
/** The text before the data of each kind's records, with the format version it was made for. */
const heads = new Map<string, { readonly version: number; readonly text: string }>();

/** `{"kind":…,"version":…,"data":`, made once per kind and version; `undefined` when a part is not plain. */
function headOf(kind: string, version: number): string | undefined {
  const known = heads.get(kind);
  if (known !== undefined && known.version === version) return known.text;
  if (!(safe(kind) && finite(version))) return undefined;
  if (heads.size >= MAX_HEADS) heads.clear();
  const text = `{"kind":"${kind}","version":${version},"data":`;
  heads.set(kind, { version, text });
  return text;
}

/**
 * The text `codec` writes for `record`'s data, when the record is of its kind and format and it
 * writes one; anything but a non-empty string (a throw included) leaves the data to be serialised.
 */
function codecText(codec: RecordCodec<unknown> | undefined, record: KernelRecord): string | undefined {
  if (codec?.text === undefined || record.kind !== codec.kind || record.version !== codec.version) {
    return undefined;
  }
  try {
    const text: unknown = codec.text(record.data);
    return typeof text === 'string' && text.length > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** `JSON.stringify(value)`, or `undefined` where it throws. */
function stringified(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** A string JSON writes as it is between quotes (no quote, backslash or control character). */
const SAFE = /^[\w.:@/-]*$/;
const safe = (value: unknown): value is string => typeof value === 'string' && SAFE.test(value);
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
