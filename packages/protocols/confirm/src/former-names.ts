// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import type { JsonValue } from '@parley/core';
import { canonicalArgs } from './digest.js';
import { DEFAULT_MAX_PENDING_CONFIRMATIONS } from './outcomes.js';

/**
 * The former name of {@link DEFAULT_MAX_PENDING_CONFIRMATIONS}: the same value.
 *
 * @deprecated Use `DEFAULT_MAX_PENDING_CONFIRMATIONS`; `DEFAULT_MAX_PENDING` was exported by another package for something else.
 * @example
 * ```ts
 * import { DEFAULT_MAX_PENDING_CONFIRMATIONS, DEFAULT_MAX_PENDING } from '@parley/confirm';
 *
 * console.log(DEFAULT_MAX_PENDING === DEFAULT_MAX_PENDING_CONFIRMATIONS); // true
 * ```
 */
export const DEFAULT_MAX_PENDING = DEFAULT_MAX_PENDING_CONFIRMATIONS;

/**
 * Writes JSON with object keys sorted at every depth, so equal values always give equal text: core's
 * `canonicalJson`, throwing `ConfirmError` `invalid_action` (not core's `json_not_serializable`) for a
 * value that is not JSON.
 *
 * @deprecated Use `canonicalJson` from `@parley/core`; canonical JSON has one home. Removed in the next
 * minor version.
 * @throws ConfirmError `invalid_action` when the value is not JSON (functions, NaN, cycles, Dates…).
 * @example
 * ```ts
 * import { canonicalJson } from '@parley/confirm';
 *
 * console.log(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })); // {"a":[{"c":3,"d":2}],"b":1}
 * ```
 */
export const canonicalJson: (value: JsonValue) => string = canonicalArgs;
