// SHA-256 of text's UTF-8 bytes as lowercase hex, synchronous, from @noble/hashes (audited, zero
// dependencies; v1 ships ESM and CJS and runs on every Node >= 20), as @parley/bus and
// @parley/confirm use it. Web Crypto offers it only asynchronously; the kernel's steps are synchronous.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** The SHA-256 of `text` (UTF-8), as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

export { bytesToHex, hexToBytes };

/** Whether `text` is `length` lowercase hex characters. */
export function isHex(text: unknown, length: number): text is string {
  return typeof text === 'string' && text.length === length && /^[0-9a-f]*$/.test(text);
}

/** The number of UTF-8 bytes of `text`. */
export function utf8Length(text: string): number {
  return utf8ToBytes(text).length;
}
