// SHA-256 of text's UTF-8 bytes as lowercase hex, synchronous, from @noble/hashes (audited, zero
// dependencies; v1 ships ESM and CJS and runs on every Node >= 20, as @parley/confirm uses it).
// Web Crypto offers it only asynchronously, and the bus remembers ids on its synchronous path.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The SHA-256 of `text` (UTF-8; a lone surrogate is encoded as U+FFFD), as 64 hex characters. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
