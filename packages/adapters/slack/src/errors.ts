import { ParleyError } from '@parley/core';

/**
 * The codes {@link SlackAdapterError} can carry.
 *
 * @example
 * ```ts
 * import { SLACK_ADAPTER_ERROR_CODES } from '@parley/slack';
 *
 * console.log(SLACK_ADAPTER_ERROR_CODES.includes('rate_limited')); // true
 * ```
 */
export const SLACK_ADAPTER_ERROR_CODES = [
  'rate_limited',
  'platform_error',
  'network_error',
  'button_value_too_long',
  'button_label_too_long',
  'closed',
] as const;

/**
 * A code of {@link SlackAdapterError}.
 *
 * @example
 * ```ts
 * import type { SlackAdapterErrorCode } from '@parley/slack';
 *
 * const code: SlackAdapterErrorCode = 'button_value_too_long';
 * ```
 */
export type SlackAdapterErrorCode = (typeof SLACK_ADAPTER_ERROR_CODES)[number];

/**
 * The error a Slack adapter's `send` rejects with; the bus turns it into a `send_failed` result and
 * a `dropped` event carrying it.
 *
 * `rate_limited` carries `details.retryAfterMs` when Slack sent `Retry-After`; `platform_error`
 * carries Slack's `details.error` (e.g. `channel_not_found`) or the HTTP `details.statusCode`; the
 * `@slack/web-api` error is the `cause`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { SlackAdapterError } from '@parley/slack';
 *
 * const error = new SlackAdapterError('rate_limited', 'ratelimited', { details: { retryAfterMs: 3000 } });
 * console.log(isParleyError(error, 'rate_limited'), error.details.retryAfterMs); // true 3000
 * ```
 */
export class SlackAdapterError extends ParleyError<SlackAdapterErrorCode> {}
