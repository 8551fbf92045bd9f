import { ParleyError } from '@parley/core';

/**
 * The codes {@link ChatSdkAdapterError} can carry.
 *
 * @example
 * ```ts
 * import { CHAT_SDK_ADAPTER_ERROR_CODES } from '@parley/chat-sdk';
 *
 * console.log(CHAT_SDK_ADAPTER_ERROR_CODES.includes('rate_limited')); // true
 * ```
 */
export const CHAT_SDK_ADAPTER_ERROR_CODES = [
  'rate_limited',
  'platform_error',
  'network_error',
  'invalid_argument',
] as const;

/**
 * A code of {@link ChatSdkAdapterError}.
 *
 * @example
 * ```ts
 * import type { ChatSdkAdapterErrorCode } from '@parley/chat-sdk';
 *
 * const code: ChatSdkAdapterErrorCode = 'platform_error';
 * ```
 */
export type ChatSdkAdapterErrorCode = (typeof CHAT_SDK_ADAPTER_ERROR_CODES)[number];

/**
 * The error a Chat SDK adapter's `send` rejects with (the bus turns it into a `send_failed` result
 * and a `dropped` event carrying it), or that {@link createChatSdkAdapter} throws when misused.
 * `rate_limited` carries `details.retryAfterMs` when the platform said; `platform_error` carries
 * `details.status` (the platform's HTTP status) or `details.chatCode` (the Chat SDK's error code);
 * the Chat SDK's error is the `cause`.
 *
 * @example
 * ```ts
 * import { ChatSdkAdapterError } from '@parley/chat-sdk';
 * import { isParleyError } from '@parley/core';
 *
 * const error = new ChatSdkAdapterError('rate_limited', 'Discord: 429', { details: { retryAfterMs: 1500 } });
 * console.log(isParleyError(error, 'rate_limited'), error.details.retryAfterMs); // true 1500
 * ```
 */
export class ChatSdkAdapterError extends ParleyError<ChatSdkAdapterErrorCode> {}
