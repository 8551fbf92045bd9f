import { ParleyError } from '@parley/core';

/**
 * The codes {@link TelegramAdapterError} can carry.
 *
 * @example
 * ```ts
 * import { TELEGRAM_ADAPTER_ERROR_CODES } from '@parley/telegram';
 *
 * console.log(TELEGRAM_ADAPTER_ERROR_CODES.includes('rate_limited')); // true
 * ```
 */
export const TELEGRAM_ADAPTER_ERROR_CODES = [
  'rate_limited',
  'platform_error',
  'network_error',
  'callback_data_too_long',
  'invalid_argument',
  'closed',
] as const;

/**
 * A code of {@link TelegramAdapterError}.
 *
 * @example
 * ```ts
 * import type { TelegramAdapterErrorCode } from '@parley/telegram';
 *
 * const code: TelegramAdapterErrorCode = 'callback_data_too_long';
 * ```
 */
export type TelegramAdapterErrorCode = (typeof TELEGRAM_ADAPTER_ERROR_CODES)[number];

/**
 * The error a Telegram adapter's `send` rejects with (the bus turns it into a `send_failed` result
 * and a `dropped` event carrying it), or that {@link createTelegramAdapter} throws when misused.
 *
 * `rate_limited` carries `details.retryAfterMs` (Telegram's `parameters.retry_after` × 1000);
 * `platform_error` carries `details.errorCode` and `details.description`; the grammY error is the
 * `cause`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { TelegramAdapterError } from '@parley/telegram';
 *
 * const error = new TelegramAdapterError('rate_limited', 'Too Many Requests', { details: { retryAfterMs: 3000 } });
 * console.log(isParleyError(error, 'rate_limited'), error.details.retryAfterMs); // true 3000
 * ```
 */
export class TelegramAdapterError extends ParleyError<TelegramAdapterErrorCode> {}
