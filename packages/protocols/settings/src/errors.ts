import { ParleyError } from '@parley/core';

/**
 * The codes {@link SettingsError} can carry: each one is API misuse or a broken invariant.
 *
 * Use it to build exhaustive handlers or to list the codes in docs.
 *
 * @example
 * ```ts
 * import { SETTINGS_ERROR_CODES } from '@parley/settings';
 *
 * console.log(SETTINGS_ERROR_CODES.includes('unknown_key')); // true
 * ```
 */
export const SETTINGS_ERROR_CODES = [
  'invalid_definition',
  'duplicate_key',
  'invalid_relation',
  'unknown_key',
  'invalid_argument',
  'write_conflict',
  'corrupt_record',
  'record_version',
  'too_large',
  'store_failed',
] as const;

/**
 * A code of {@link SettingsError}.
 *
 * @example
 * ```ts
 * import type { SettingsErrorCode } from '@parley/settings';
 *
 * const code: SettingsErrorCode = 'write_conflict';
 * ```
 */
export type SettingsErrorCode = (typeof SETTINGS_ERROR_CODES)[number];

/**
 * The error `@parley/settings` throws when its API is misused or a write cannot be committed.
 *
 * Check it with `isParleyError(err, code)` rather than `instanceof`. Input from users or the model
 * is never thrown: it comes back as a {@link SettingsRefusal}.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { defineSetting, SettingsError } from '@parley/settings';
 * import { z } from 'zod';
 *
 * try {
 *   defineSetting({ key: 'ui.volume', schema: z.number().max(10), default: 11 });
 * } catch (err) {
 *   console.log(err instanceof SettingsError, isParleyError(err, 'invalid_definition')); // true true
 * }
 * ```
 */
export class SettingsError extends ParleyError<SettingsErrorCode> {}
