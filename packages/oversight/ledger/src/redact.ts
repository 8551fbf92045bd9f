import { canonicalJson, type JsonValue } from '@parley/core';
import type { Redacted } from './entry.js';
import { sha256Hex } from './internal/hash.js';

/**
 * Replaces a value by its salted digest: SHA-256 of the salt, a newline and the value's canonical
 * JSON. The chain commits to the digest, so it verifies without the value; whoever keeps the value
 * and the salt can later show which value it was ({@link matchesRedacted}), and without the salt a
 * short value cannot be guessed from the digest.
 *
 * @example
 * ```ts
 * import { redactValue } from '@parley/ledger';
 *
 * console.log(redactValue('DELETE FROM orders', 'salt-1').redacted.startsWith('sha256:')); // true
 * ```
 */
export function redactValue(value: JsonValue, salt: string): Redacted {
  return { redacted: `sha256:${sha256Hex(`${salt}\n${canonicalJson(value)}`)}` };
}

/**
 * Whether `value` under `salt` is the value a {@link Redacted} digest stands for.
 *
 * @example
 * ```ts
 * import { matchesRedacted, redactValue } from '@parley/ledger';
 *
 * const digest = redactValue('确认', 'salt-1');
 * console.log(matchesRedacted('确认', 'salt-1', digest), matchesRedacted('取消', 'salt-1', digest)); // true false
 * ```
 */
export function matchesRedacted(value: JsonValue, salt: string, redacted: Redacted): boolean {
  return redactValue(value, salt).redacted === redacted.redacted;
}
