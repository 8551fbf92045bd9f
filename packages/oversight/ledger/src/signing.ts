// Ed25519 (RFC 8032) from @noble/curves, audited and dependency-free but for @noble/hashes. The 1.9
// line ships ESM and CJS and supports every Node >= 20; 2.x is ESM-only and needs Node >= 20.19,
// which the CJS build of this package (and Node 20.0–20.18) could not load.
import { ed25519 } from '@noble/curves/ed25519.js';
import { LedgerError } from './errors.js';
import { bytesToHex, hexToBytes, isHex } from './internal/hash.js';

/**
 * A deployment's signing key: its name (written into every entry it signs) and its 32-byte
 * Ed25519 private key as 64 hex characters. Keep the private key out of the ledger's store.
 *
 * @example
 * ```ts
 * import type { LedgerSigningKey } from '@parley/ledger';
 *
 * const key: LedgerSigningKey = { keyId: 'prod-2026', privateKey: '1f'.repeat(32) };
 * ```
 */
export interface LedgerSigningKey {
  readonly keyId: string;
  readonly privateKey: string;
}

/**
 * The public key (64 hex characters) of an Ed25519 private key: what a verifier needs, alone.
 *
 * @throws LedgerError `invalid_argument` when the private key is not 64 hex characters.
 * @example
 * ```ts
 * import { publicKeyOf } from '@parley/ledger';
 *
 * console.log(publicKeyOf('1f'.repeat(32)).length); // 64
 * ```
 */
export function publicKeyOf(privateKey: string): string {
  return bytesToHex(ed25519.getPublicKey(privateKeyBytes(privateKey)));
}

/** The signature (128 hex) of an entry hash. */
export function signHash(hash: string, privateKey: string): string {
  return bytesToHex(ed25519.sign(hexToBytes(hash), privateKeyBytes(privateKey)));
}

/** Whether `sig` is a valid signature of `hash` under `publicKey`; never throws. */
export function verifyHash(hash: string, sig: string, publicKey: string): boolean {
  try {
    return ed25519.verify(hexToBytes(sig), hexToBytes(hash), hexToBytes(publicKey));
  } catch {
    return false; // a malformed key or signature is a failed check, not an error
  }
}

/** Checks a signing key's shape (throws `invalid_argument`). */
export function checkSigningKey(key: LedgerSigningKey): void {
  if (typeof key.keyId !== 'string' || key.keyId === '' || key.keyId.length > 64) {
    throw new LedgerError('invalid_argument', 'signing.keyId must be 1–64 characters');
  }
  privateKeyBytes(key.privateKey);
}

function privateKeyBytes(privateKey: string): Uint8Array {
  if (!isHex(privateKey, 64)) {
    throw new LedgerError('invalid_argument', 'an Ed25519 private key is 64 lowercase hex characters');
  }
  return hexToBytes(privateKey);
}
