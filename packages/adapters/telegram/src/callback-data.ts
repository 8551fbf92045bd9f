import { type JsonValue, safeParseJson } from '@parley/core';

/**
 * The Bot API's limit on an inline button's `callback_data`, in bytes of UTF-8.
 *
 * @example
 * ```ts
 * import { MAX_CALLBACK_DATA_BYTES } from '@parley/telegram';
 *
 * console.log(MAX_CALLBACK_DATA_BYTES); // 64
 * ```
 */
export const MAX_CALLBACK_DATA_BYTES = 64;

// Parley's buttons are recognised by a prefix, so the bot's own inline keyboards (any other
// callback_data) pass through to its own handlers untouched.
/** `{ confirmation: token }`, the confirm gate's buttons: the token alone. */
const TOKEN = 'p:c:';
/** Any other JSON value. */
const JSON_VALUE = 'p:j:';
/** A value too long for callback_data, kept in the store under this key. */
const STORED = 'p:k:';

const encoder = new TextEncoder();

/** The UTF-8 length of `text`. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The callback_data for a button value, before any length check. */
export function encodeValue(value: JsonValue): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as { readonly [key: string]: JsonValue }; // an object, checked above
    const keys = Object.keys(record);
    const token = record['confirmation'];
    if (keys.length === 1 && typeof token === 'string') return `${TOKEN}${token}`;
  }
  return `${JSON_VALUE}${JSON.stringify(value)}`;
}

/** The callback_data pointing at a value kept in the store. */
export function encodeStored(key: string): string {
  return `${STORED}${key}`;
}

/** What a click's callback_data holds. */
export type DecodedData =
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'stored'; readonly key: string }
  | { readonly kind: 'foreign' };

/** Reads callback_data written by {@link encodeValue} / {@link encodeStored}; anything else is the bot's own. */
export function decodeData(data: string | undefined): DecodedData {
  if (data === undefined) return { kind: 'foreign' };
  if (data.startsWith(TOKEN)) return { kind: 'value', value: { confirmation: data.slice(TOKEN.length) } };
  if (data.startsWith(STORED)) return { kind: 'stored', key: data.slice(STORED.length) };
  if (data.startsWith(JSON_VALUE)) {
    const parsed = safeParseJson(data.slice(JSON_VALUE.length), { maxBytes: MAX_CALLBACK_DATA_BYTES });
    if (parsed.ok) return { kind: 'value', value: parsed.value };
  }
  return { kind: 'foreign' };
}
