import { ParleyError } from '@parley/core';

/**
 * The codes {@link FeishuAdapterError} can carry.
 *
 * @example
 * ```ts
 * import { FEISHU_ERROR_CODES } from '@parley/feishu';
 *
 * console.log(FEISHU_ERROR_CODES.includes('rate_limited')); // true
 * ```
 */
export const FEISHU_ERROR_CODES = [
  'send_failed',
  'rate_limited',
  'payload_too_large',
  'not_delivered',
  'invalid_argument',
] as const;

/**
 * A code of {@link FeishuAdapterError}.
 *
 * - `send_failed`: the OpenAPI refused a send (`details.status`, `details.platformCode`,
 *   `details.platformMessage`), or the request never got an answer (`cause`).
 * - `rate_limited`: Feishu answered a send with its rate limit (HTTP 429, code 99991400 or
 *   230020); `details.retryAfterMs` when it said when to retry.
 * - `payload_too_large`: the rendered message is over Feishu's size limit (`details.bytes`,
 *   `details.limit`); nothing was sent.
 * - `not_delivered`: an event arrived while no bus was attached, or the bus refused it
 *   (`details.code`); reported to `onError`, the event handler still answers Feishu.
 * - `invalid_argument`: `createFeishuAdapter` was given no bot open id or a bad limit.
 *
 * @example
 * ```ts
 * import type { FeishuErrorCode } from '@parley/feishu';
 *
 * const code: FeishuErrorCode = 'payload_too_large';
 * ```
 */
export type FeishuErrorCode = (typeof FEISHU_ERROR_CODES)[number];

/**
 * The error `@parley/feishu` throws, rejects with, or reports to `onError`; check it with
 * `isParleyError(err, 'rate_limited')`.
 *
 * A send that fails rejects with one, which the bus turns into a `send_failed` result and a
 * `dropped` event carrying it as `error`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { FeishuAdapterError } from '@parley/feishu';
 *
 * const err = new FeishuAdapterError('rate_limited', 'Slow down', { details: { retryAfterMs: 1000 } });
 * console.log(isParleyError(err, 'rate_limited'), err.details.retryAfterMs); // true 1000
 * ```
 */
export class FeishuAdapterError extends ParleyError<FeishuErrorCode> {}

/**
 * The former name of {@link FeishuAdapterError}, kept for one minor version so code that catches it keeps
 * working; the same class, so `instanceof` holds either way.
 *
 * @deprecated Use `FeishuAdapterError`: every channel adapter's error is named `<Platform>AdapterError`.
 * @example
 * ```ts
 * import { FeishuAdapterError, FeishuError } from '@parley/feishu';
 *
 * console.log(FeishuError === FeishuAdapterError); // true
 * ```
 */
export const FeishuError = FeishuAdapterError;
/**
 * The former name of the {@link FeishuAdapterError} type.
 *
 * @deprecated Use `FeishuAdapterError`.
 * @example
 * ```ts
 * import type { FeishuError } from '@parley/feishu';
 *
 * const describe = (err: FeishuError): string => err.code;
 * ```
 */
export type FeishuError = FeishuAdapterError;
