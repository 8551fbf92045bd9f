import { ParleyError } from '@parley/core';

/**
 * The codes {@link DingTalkAdapterError} can carry.
 *
 * @example
 * ```ts
 * import { DINGTALK_ERROR_CODES } from '@parley/dingtalk';
 *
 * console.log(DINGTALK_ERROR_CODES.includes('rate_limited')); // true
 * ```
 */
export const DINGTALK_ERROR_CODES = [
  'send_failed',
  'rate_limited',
  'not_delivered',
  'invalid_argument',
] as const;

/**
 * A code of {@link DingTalkAdapterError}.
 *
 * - `send_failed`: the OpenAPI refused a send or the access token (`details.status`,
 *   `details.platformCode`, `details.platformMessage`), or could not be reached (`cause`).
 * - `rate_limited`: DingTalk answered with its flow control (HTTP 429, or a `…QpsLimit…` /
 *   `Throttling…` code).
 * - `not_delivered`: a stream message arrived while no bus was attached, or the bus refused it
 *   (`details.code`); reported to `onError` and left unacknowledged, so DingTalk pushes it again.
 * - `invalid_argument`: `createDingTalkAdapter` was given no robot code or a bad limit.
 *
 * @example
 * ```ts
 * import type { DingTalkErrorCode } from '@parley/dingtalk';
 *
 * const code: DingTalkErrorCode = 'not_delivered';
 * ```
 */
export type DingTalkErrorCode = (typeof DINGTALK_ERROR_CODES)[number];

/**
 * The error `@parley/dingtalk` throws, rejects with, or reports to `onError`; check it with
 * `isParleyError(err, 'rate_limited')`.
 *
 * A send that fails rejects with one, which the bus turns into a `send_failed` result and a
 * `dropped` event carrying it as `error`.
 *
 * @example
 * ```ts
 * import { isParleyError } from '@parley/core';
 * import { DingTalkAdapterError } from '@parley/dingtalk';
 *
 * const err = new DingTalkAdapterError('rate_limited', 'Slow down', { details: { retryAfterMs: 1000 } });
 * console.log(isParleyError(err, 'rate_limited'), err.details.retryAfterMs); // true 1000
 * ```
 */
export class DingTalkAdapterError extends ParleyError<DingTalkErrorCode> {}

/**
 * The former name of {@link DingTalkAdapterError}, kept for one minor version so code that catches it keeps
 * working; the same class, so `instanceof` holds either way.
 *
 * @deprecated Use `DingTalkAdapterError`: every channel adapter's error is named `<Platform>AdapterError`.
 * @example
 * ```ts
 * import { DingTalkAdapterError, DingTalkError } from '@parley/dingtalk';
 *
 * console.log(DingTalkError === DingTalkAdapterError); // true
 * ```
 */
export const DingTalkError = DingTalkAdapterError;
/**
 * The former name of the {@link DingTalkAdapterError} type.
 *
 * @deprecated Use `DingTalkAdapterError`.
 * @example
 * ```ts
 * import type { DingTalkError } from '@parley/dingtalk';
 *
 * const describe = (err: DingTalkError): string => err.code;
 * ```
 */
export type DingTalkError = DingTalkAdapterError;
