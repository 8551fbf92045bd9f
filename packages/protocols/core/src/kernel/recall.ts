// A read of a record this kernel wrote itself, while the memory store still holds that very write:
// only its data's text is parsed (the envelope is rebuilt from what was written), and a read whose
// data reaches no caller's code before the next write can reuse that text instead of writing it again.
import type { DirectStore } from '../internal/direct-store.js';
import type { Decoded } from './record.js';
import type { WrittenRecords } from './record-text.js';
import type { Committed, KernelRecord, RecordCodec } from './types.js';

/**
 * @internal The record at `key` as `decodeEntry` would read it from `direct`, when the store's version
 * there is the one this kernel's last write at `key` got; otherwise `undefined` (read the store).
 * A record of another kind or format, or data `codec` does not take, is left to the full read (which
 * refuses it, naming why). `opaque`: no caller's code sees the data before it is written again (a
 * lease taken or given back), so the next record that carries it reuses its text.
 */
export function recall<T>(
  written: WrittenRecords,
  direct: DirectStore,
  key: string,
  codec: RecordCodec<T> | undefined,
  opaque: boolean,
): Extract<Decoded<T>, { ok: true }> | undefined {
  const last = written.lastOf(key);
  if (last === undefined || last.dataText === undefined || last.storeVersion === undefined) return undefined;
  const { kind, version, fence, deadlineAt } = last.record;
  if (codec !== undefined && (kind !== codec.kind || version !== codec.version)) return undefined;
  // throws what a read would (store_closed); the caller refuses it as a failed read
  const storeVersion = direct.versionOf(key);
  if (storeVersion !== last.storeVersion) return undefined;
  const data = JSON.parse(last.dataText) as KernelRecord['data']; // the store took this very text
  const { leaseOwner: owner, leaseToken: token, leaseExpiresAt: expiresAt } = last;
  const lease = owner === null ? null : { owner, token, expiresAt };
  const record: KernelRecord = { kind, version, data, lease, fence, deadlineAt };
  if (opaque) written.wrote(key, record, last.dataText, storeVersion);
  if (data === null || codec === undefined)
    return { ok: true, record, committed: undefined, version: storeVersion };
  const value = codec.decode(data);
  if (value === undefined) return undefined;
  const committed: Committed<T> = { key, value, storeVersion, lease, fence, deadlineAt };
  return { ok: true, record, committed, version: storeVersion };
}
