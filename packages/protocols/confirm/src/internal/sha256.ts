// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), synchronous, from @noble/hashes (audited,
// zero-dependency). Web Crypto only offers them asynchronously, and its promise settles on a later
// macrotask, which made the digest the slowest step of a confirmation; the inputs here are a few
// hundred bytes. v1 of @noble/hashes ships CJS and ESM and supports every Node ≥ 20 (v2 is ESM-only
// and needs Node ≥ 20.19). Tested against the NIST and RFC 4231 vectors and against Web Crypto.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';

/** The SHA-256 digest (32 bytes) of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

/** HMAC-SHA256 (32 bytes) of `message` under `key`. */
export function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  return hmac(nobleSha256, key, message);
}

/**
 * The UTF-8 bytes of `text`, as `TextEncoder` gives them (a lone surrogate becomes U+FFFD); a
 * plain loop is several times faster than `TextEncoder` for the short texts hashed here.
 */
export function utf8(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 3); // a UTF-16 unit never takes more than 3 bytes
  return out.subarray(0, encodeInto(text, out));
}

/**
 * The SHA-256 digest (hex) of the UTF-8 bytes of `text`: `toHex(sha256(utf8(text)))`, with the
 * bytes written into one buffer reused by every call (the digest is computed before it returns).
 */
export function sha256Hex(text: string): string {
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  return toHex(sha256(scratch.subarray(0, encodeInto(text, scratch))));
}

/** The buffer `sha256Hex` encodes into; grown when a longer text comes. */
let scratch = new Uint8Array(1024);

/** Writes the UTF-8 bytes of `text` into `out` (at least 3 bytes per UTF-16 unit) and returns how many. */
function encodeInto(text: string, out: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      out[n++] = code;
    } else if (code < 0x800) {
      out[n++] = 0xc0 | (code >> 6);
      out[n++] = 0x80 | (code & 63);
    } else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      code = 0x10000 + ((code - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      out[n++] = 0xf0 | (code >> 18);
      out[n++] = 0x80 | ((code >> 12) & 63);
      out[n++] = 0x80 | ((code >> 6) & 63);
      out[n++] = 0x80 | (code & 63);
    } else {
      if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
      out[n++] = 0xe0 | (code >> 12);
      out[n++] = 0x80 | ((code >> 6) & 63);
      out[n++] = 0x80 | (code & 63);
    }
  }
  return n;
}

/** Compares two byte strings in time that depends only on their lengths. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * The lowercase hex of `bytes`: the digits' ASCII codes written into one buffer (reused for a
 * digest's 32 bytes) and decoded into one string, instead of a string per byte joined 32 times.
 */
export function toHex(bytes: Uint8Array): string {
  const out = bytes.length === 32 ? digestDigits : new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    const at = (bytes[i] as number) * 2;
    out[2 * i] = DIGITS[at] as number;
    out[2 * i + 1] = DIGITS[at + 1] as number;
  }
  decoder ??= new TextDecoder();
  return decoder.decode(out);
}

/** The two ASCII codes of each byte's hex digits, byte `b` at `2 * b`. */
const DIGITS = Uint8Array.from({ length: 512 }, (_, i) =>
  '0123456789abcdef'.charCodeAt(i % 2 === 0 ? i >> 5 : (i >> 1) & 15),
);
/** The buffer `toHex` writes a digest's 64 digits into. */
const digestDigits = new Uint8Array(64);
/** Made on first use: ASCII decodes the same in every runtime. */
let decoder: TextDecoder | undefined;
