import { sha256Hex } from './internal/sha256.js';

/**
 * The longest id kept as it is in a memory of recent ids: 64 characters. A longer one is kept as
 * its SHA-256 digest, so each remembered id takes at most 65 characters whatever its sender sent.
 *
 * @example
 * ```ts
 * import { MAX_REMEMBERED_ID_LENGTH } from '@parley/bus';
 *
 * console.log(MAX_REMEMBERED_ID_LENGTH); // 64
 * ```
 */
export const MAX_REMEMBERED_ID_LENGTH = 64;

/**
 * The key under which a memory of recent ids (redelivered event ids, messages seen) keeps `id`:
 * the id itself up to {@link MAX_REMEMBERED_ID_LENGTH} characters, otherwise `#` and the 64 hex
 * characters of its SHA-256. Use it for every id a peer chooses that is remembered, so the memory
 * is bounded in bytes and not only in count. Two ids get the same key only when they are equal
 * (a SHA-256 collision aside); a kept id has at most 64 characters and a digest key 65, so the
 * two never meet.
 *
 * @example
 * ```ts
 * import { toRememberedId } from '@parley/bus';
 *
 * console.log(toRememberedId('evt_1')); // evt_1
 * console.log(toRememberedId('x'.repeat(65_536)).length); // 65
 * ```
 */
export function toRememberedId(id: string): string {
  return id.length <= MAX_REMEMBERED_ID_LENGTH ? id : `#${sha256Hex(id)}`;
}
