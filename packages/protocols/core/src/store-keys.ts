import { CoreError } from './errors.js';

/**
 * The longest `ttlMs` a store accepts: ten years of 365 days. Longer values are refused
 * (`invalid_timeout`) rather than overflowing a server's expiry or silently expiring at once.
 *
 * @example
 * ```ts
 * import { MAX_TTL_MS } from '@parley/core';
 *
 * console.log(MAX_TTL_MS / (24 * 3_600_000)); // 3650
 * ```
 */
export const MAX_TTL_MS = 315_360_000_000;

/**
 * Checks a `ttlMs` given to a store: a finite number of milliseconds, greater than zero and at most
 * {@link MAX_TTL_MS}, and returns it.
 *
 * Every `Store` implementation calls it before writing, so all stores refuse the same values.
 *
 * @throws CoreError `invalid_timeout` for any other value, with `details.name` and `details.value`.
 * @example
 * ```ts
 * import { assertTtlMs } from '@parley/core';
 *
 * console.log(assertTtlMs(60_000)); // 60000
 * ```
 */
export function assertTtlMs(value: unknown, name = 'ttlMs'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TTL_MS) {
    throw new CoreError(
      'invalid_timeout',
      `${name} must be a finite number of milliseconds in (0, ${MAX_TTL_MS}], got ${String(value)}`,
      { details: { name, value: typeof value === 'number' ? value : String(value) } },
    );
  }
  return value;
}

/**
 * Encodes a store key as text that any backend keeps byte for byte: every UTF-16 surrogate
 * (paired or lone) becomes `%uXXXX`, `%` becomes `%25` and NUL becomes `%00`; everything else is
 * unchanged.
 *
 * Use it in a `Store` over a backend that stores UTF-8 (Redis through ioredis, Postgres `text`), so
 * distinct keys such as `'k\ud800'` and `'k\udbff'` stay distinct. The encoding is one fixed
 * codeword per code unit, so it keeps prefixes: `encodeStoreKey(p)` is a prefix of
 * `encodeStoreKey(k)` exactly when `p` is a prefix of `k`.
 *
 * @example
 * ```ts
 * import { decodeStoreKey, encodeStoreKey } from '@parley/core';
 *
 * console.log(encodeStoreKey('call_\ud800')); // call_%uD800
 * console.log(decodeStoreKey(encodeStoreKey('50% 确认 😀')) === '50% 确认 😀'); // true
 * ```
 */
export function encodeStoreKey(key: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    let codeword: string;
    if (code === 0x25) codeword = '%25';
    else if (code === 0) codeword = '%00';
    else if (code >= 0xd800 && code <= 0xdfff) codeword = `%u${code.toString(16).toUpperCase()}`;
    else continue;
    out += key.slice(start, i) + codeword;
    start = i + 1;
  }
  return start === 0 ? key : out + key.slice(start);
}

/**
 * Decodes what {@link encodeStoreKey} wrote.
 *
 * @throws CoreError `invalid_argument` for text `encodeStoreKey` cannot have written (a stray `%`).
 * @example
 * ```ts
 * import { decodeStoreKey } from '@parley/core';
 *
 * console.log(decodeStoreKey('100%25') === '100%'); // true
 * ```
 */
export function decodeStoreKey(text: string): string {
  if (!text.includes('%')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('%', i);
    if (at === -1) break;
    out += text.slice(i, at);
    if (text.startsWith('%25', at)) out += '%';
    else if (text.startsWith('%00', at)) out += '\u0000';
    else if (/^%u[0-9A-F]{4}$/.test(text.slice(at, at + 6)) && isSurrogate(text.slice(at + 2, at + 6))) {
      out += String.fromCharCode(Number.parseInt(text.slice(at + 2, at + 6), 16));
      i = at + 6;
      continue;
    } else {
      throw new CoreError('invalid_argument', `"${text}" is not an encoded store key`, {
        details: { key: text, at },
      });
    }
    i = at + 3;
  }
  return out + text.slice(i);
}

function isSurrogate(hex: string): boolean {
  const code = Number.parseInt(hex, 16);
  return code >= 0xd800 && code <= 0xdfff;
}
