// Credential references (vault://…) and session proofs (proof:…) are kept only in the host's own
// session record, where execution needs them. Every line of the transcript, every notification, the
// audit export and the session JSON go through these functions first.
import type { JsonValue } from '@parley/core';

export const REDACTED_CREDENTIAL = 'vault://[redacted]';
export const REDACTED_PROOF = 'proof:[redacted]';

const CREDENTIAL = /vault:\/\/[^\s"'<>`]+/gi;
const PROOF = /\bproof:[^\s"'<>`]+/gi;

/** Replaces every credential reference and session proof in a text. */
export function redactText(text: string): string {
  return text
    .replace(CREDENTIAL, (match) => (match === REDACTED_CREDENTIAL ? match : REDACTED_CREDENTIAL))
    .replace(PROOF, (match) => (match === REDACTED_PROOF ? match : REDACTED_PROOF));
}

/** A copy of a JSON value with every string redacted, keys included. */
export function redactJson(value: JsonValue): JsonValue {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redactText(key), redactJson(item)]),
    );
  }
  return value;
}
