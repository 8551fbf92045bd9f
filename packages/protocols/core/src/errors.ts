const PARLEY_ERROR = Symbol.for('@parley/error');

/**
 * Options accepted by every Parley error constructor.
 *
 * @example
 * ```ts
 * import type { ParleyErrorOptions } from '@parley/core';
 *
 * const options: ParleyErrorOptions = { details: { limit: 10 }, cause: new Error('boom') };
 * ```
 */
export interface ParleyErrorOptions {
  /** Facts a handler needs to act on: ids, limits, states. Plain data. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The original error, when this one wraps another. */
  readonly cause?: unknown;
}

/**
 * The base class of every error Parley throws, carrying a stable snake_case `code`.
 *
 * Packages subclass it with their own code union. Check errors with
 * {@link isParleyError} rather than `instanceof`, because the ESM and CJS builds may both
 * be loaded in one process.
 *
 * @example
 * ```ts
 * import { ParleyError, isParleyError } from '@parley/core';
 *
 * class PaymentError extends ParleyError<'declined' | 'expired'> {}
 * const err = new PaymentError('declined', 'The card was declined', { details: { last4: '4242' } });
 * console.log(isParleyError(err, 'declined')); // true
 * ```
 */
export class ParleyError<TCode extends string = string> extends Error {
  /** Stable, machine-readable code. Renaming one is a breaking change. */
  readonly code: TCode;
  /** Facts a handler needs; never secrets. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: TCode, message: string, options: ParleyErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = Object.freeze({ ...options.details });
    Object.defineProperty(this, PARLEY_ERROR, { value: true });
  }

  /** A plain JSON form for logs and transports. */
  toJSON(): { name: string; code: TCode; message: string; details: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/**
 * Tells whether a value is a Parley error, optionally with one of the given codes.
 *
 * Works across the ESM and CJS builds of any Parley package (a shared symbol marks them).
 *
 * @example
 * ```ts
 * import { ParleyError, isParleyError } from '@parley/core';
 *
 * try {
 *   throw new ParleyError('timeout', 'No reply');
 * } catch (err) {
 *   if (isParleyError(err, 'timeout')) console.log(err.code); // 'timeout'
 * }
 * ```
 */
export function isParleyError<TCode extends string = string>(
  value: unknown,
  ...codes: readonly TCode[]
): value is ParleyError<TCode> {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as { [PARLEY_ERROR]?: unknown })[PARLEY_ERROR] !== true) return false; // marker check, any build
  return codes.length === 0 || codes.includes((value as ParleyError).code as TCode);
}

/**
 * The codes {@link CoreError} can carry.
 *
 * @example
 * ```ts
 * import { CORE_ERROR_CODES } from '@parley/core';
 *
 * console.log(CORE_ERROR_CODES.includes('json_too_deep')); // true
 * ```
 */
export const CORE_ERROR_CODES = [
  'async_schema',
  'invalid_schema',
  'invalid_timeout',
  'invalid_argument',
  'json_syntax',
  'json_too_large',
  'json_too_deep',
  'json_too_many_nodes',
  'json_forbidden_key',
  'json_not_serializable',
  'schema_not_convertible',
  'clock_runaway',
  'store_closed',
] as const;

/**
 * A code of {@link CoreError}.
 *
 * @example
 * ```ts
 * import type { CoreErrorCode } from '@parley/core';
 *
 * const code: CoreErrorCode = 'json_syntax';
 * ```
 */
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/**
 * The error thrown by `@parley/core` itself.
 *
 * @example
 * ```ts
 * import { CoreError, parseJson, isParleyError } from '@parley/core';
 *
 * try {
 *   parseJson('{"__proto__": {}}');
 * } catch (err) {
 *   console.log(err instanceof CoreError, isParleyError(err, 'json_forbidden_key')); // true true
 * }
 * ```
 */
export class CoreError extends ParleyError<CoreErrorCode> {}
