// Former names, kept for one minor version so code that imports them keeps working: each is the
// same value or type as its new name, and goes in the next minor version.
import type { RequestProgressOptions } from './request-types.js';
import { DEFAULT_MAX_PENDING_REQUESTS } from './defaults.js';
import { CORRELATE_REFUSAL_CODES, type CorrelateRefusalCode } from './errors.js';
import type { CorrelateRefusal } from './receive-result.js';

/**
 * The former name of {@link CORRELATE_REFUSAL_CODES}: the same value.
 *
 * @deprecated Use `CORRELATE_REFUSAL_CODES`; `REFUSAL_CODES` was exported by another package for something else.
 * @example
 * ```ts
 * import { CORRELATE_REFUSAL_CODES, REFUSAL_CODES } from '@parley/correlate';
 *
 * console.log(REFUSAL_CODES === CORRELATE_REFUSAL_CODES); // true
 * ```
 */
export const REFUSAL_CODES = CORRELATE_REFUSAL_CODES;

/**
 * The former name of {@link CorrelateRefusalCode}: the same type.
 *
 * @deprecated Use `CorrelateRefusalCode`; `RefusalCode` was exported by another package for something else.
 * @example
 * ```ts
 * import type { CorrelateRefusalCode, RefusalCode } from '@parley/correlate';
 *
 * const same = (value: RefusalCode): CorrelateRefusalCode => value;
 * ```
 */
export type RefusalCode = CorrelateRefusalCode;

/**
 * The former name of {@link CorrelateRefusal}: the same type.
 *
 * @deprecated Use `CorrelateRefusal`; `Refusal` was exported by another package for something else.
 * @example
 * ```ts
 * import type { CorrelateRefusal, Refusal } from '@parley/correlate';
 *
 * const same = (value: Refusal): CorrelateRefusal => value;
 * ```
 */
export type Refusal = CorrelateRefusal;

/**
 * The former name of {@link DEFAULT_MAX_PENDING_REQUESTS}: the same value.
 *
 * @deprecated Use `DEFAULT_MAX_PENDING_REQUESTS`; `DEFAULT_MAX_PENDING` was exported by another package for something else.
 * @example
 * ```ts
 * import { DEFAULT_MAX_PENDING_REQUESTS, DEFAULT_MAX_PENDING } from '@parley/correlate';
 *
 * console.log(DEFAULT_MAX_PENDING === DEFAULT_MAX_PENDING_REQUESTS); // true
 * ```
 */
export const DEFAULT_MAX_PENDING = DEFAULT_MAX_PENDING_REQUESTS;

/**
 * The former name of {@link RequestProgressOptions}: the same type.
 *
 * @deprecated Use `RequestProgressOptions`; `ProgressOptions` was exported by another package for something else.
 * @example
 * ```ts
 * import type { RequestProgressOptions, ProgressOptions } from '@parley/correlate';
 *
 * const same = (value: ProgressOptions): RequestProgressOptions => value;
 * ```
 */
export type ProgressOptions = RequestProgressOptions;
