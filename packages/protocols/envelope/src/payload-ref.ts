/**
 * A payload given by reference, `{ "$ref": "Bullish_Brief.json" }`, as in the reference protocol;
 * the codec resolves it through the host's `resolveRef` before validating.
 *
 * @example
 * ```ts
 * import type { PayloadRef } from '@parley/envelope';
 *
 * const ref: PayloadRef = { $ref: 'Bullish_Brief.json' };
 * ```
 */
export interface PayloadRef {
  readonly $ref: string;
}

/**
 * Tells whether a payload is a reference: an object whose only key is `$ref`, holding a string.
 *
 * @example
 * ```ts
 * import { isPayloadRef } from '@parley/envelope';
 *
 * console.log(isPayloadRef({ $ref: 'Bullish_Brief.json' }), isPayloadRef({ thesis: 'up' })); // true false
 * ```
 */
export function isPayloadRef(value: unknown): value is PayloadRef {
  if (typeof value !== 'object' || value === null) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== '$ref' || ++keys > 1) return false;
  }
  return keys === 1 && typeof (value as { $ref?: unknown }).$ref === 'string';
}

/**
 * The reference names the codec passes to a resolver: 1–200 letters, digits, `_`, `-` and `.`,
 * not starting with a dot and without `..`, so a hostile `$ref` cannot name a path.
 *
 * @example
 * ```ts
 * import { REF_PATTERN } from '@parley/envelope';
 *
 * console.log(REF_PATTERN.test('Bullish_Brief.json'), REF_PATTERN.test('../secrets.json')); // true false
 * ```
 */
export const REF_PATTERN: RegExp = /^(?!.*\.\.)[A-Za-z0-9_-][\w.-]{0,199}$/;
