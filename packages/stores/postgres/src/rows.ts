import {
  decodeStoreKey,
  encodeStoreKey,
  type JsonLimits,
  type StoreEntry,
  safeParseJson,
} from '@parley/core';
import { MAX_KEY_BYTES, PostgresStoreError } from './errors.js';

/**
 * Above every character an encoded key can hold: `encodeStoreKey` escapes every surrogate, so an
 * encoded key is made of BMP characters only, and U+10FFFF sorts after all of them in `COLLATE "C"`
 * (UTF-8 byte order).
 */
const ABOVE_ALL = '\u{10FFFF}';

/** The key as stored: `encodeStoreKey(key)`, refused past {@link MAX_KEY_BYTES}. */
export function encodeKey(key: string): string {
  const encoded = encodeStoreKey(key);
  const bytes = utf8Length(encoded);
  if (bytes > MAX_KEY_BYTES) {
    throw new PostgresStoreError(
      'key_too_long',
      `The key takes ${bytes} bytes encoded; at most ${MAX_KEY_BYTES}`,
      {
        details: { bytes, max: MAX_KEY_BYTES },
      },
    );
  }
  return encoded;
}

/**
 * The range `[low, high)` of stored keys that start with `prefix`, for `key >= low AND key < high`
 * on the primary key index; `[undefined, undefined]` when no stored key can be that long.
 */
export function prefixRange(prefix: string): [string, string] | [undefined, undefined] {
  const low = encodeStoreKey(prefix);
  if (utf8Length(low) > MAX_KEY_BYTES) return [undefined, undefined];
  return [low, low + ABOVE_ALL];
}

/** A decoded row: an entry, or the reason it is not one of ours. */
export type DecodedRow =
  | { readonly ok: true; readonly entry: StoreEntry }
  | { readonly ok: false; readonly reason: string };

/** Validates a row read for `key`; never trusts a column it did not check. */
export function decodeRow(key: string, row: Record<string, unknown>, limits: JsonLimits): DecodedRow {
  const parsed = safeParseJson(String(row.value), limits);
  if (!parsed.ok) return { ok: false, reason: `${parsed.code}: ${parsed.message}` };
  const expiresAt =
    row.expires_at === null || row.expires_at === undefined ? undefined : Number(row.expires_at);
  return { ok: true, entry: { key, value: parsed.value, version: Number(row.version), expiresAt } };
}

/** The key a listed row holds, or undefined when it is not one `encodeStoreKey` wrote. */
export function decodeListedKey(stored: string): string | undefined {
  try {
    return decodeStoreKey(stored);
  } catch {
    return undefined;
  }
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : 3; // no surrogates: encodeStoreKey escaped them
  }
  return bytes;
}
