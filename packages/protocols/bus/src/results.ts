import type { InboundMessage, OutboundMessage } from './message.js';
import type { PlatformOrder } from './order.js';

// What publishing a message gives back. Its own file so that the adapter interface and the bus's
// types both read it without importing each other.

/**
 * Why a message did not reach its destination.
 *
 * @example
 * ```ts
 * import { PUBLISH_REFUSAL_CODES } from '@parley/bus';
 *
 * console.log(PUBLISH_REFUSAL_CODES.includes('queue_full')); // true
 * ```
 */
export const PUBLISH_REFUSAL_CODES = [
  'queue_full',
  'closed',
  'invalid_message',
  'interceptor_failed',
  'send_failed',
] as const;

/**
 * One of {@link PUBLISH_REFUSAL_CODES}.
 *
 * @example
 * ```ts
 * import type { PublishRefusalCode } from '@parley/bus';
 *
 * const code: PublishRefusalCode = 'closed';
 * ```
 */
export type PublishRefusalCode = (typeof PUBLISH_REFUSAL_CODES)[number];

/**
 * The result of {@link MessageBus.publishInbound}; a refusal is data, never an exception.
 *
 * @example
 * ```ts
 * import type { PublishResult } from '@parley/bus';
 *
 * function describe(result: PublishResult): string {
 *   return result.status === 'rejected' ? result.code : result.status;
 * }
 * ```
 */
export type PublishResult =
  | { readonly status: 'queued'; readonly message: InboundMessage }
  | { readonly status: 'intercepted'; readonly message: InboundMessage; readonly by: string }
  | {
      readonly status: 'rejected';
      readonly code: Exclude<PublishRefusalCode, 'send_failed'>;
      readonly message?: InboundMessage;
      readonly by?: string;
      readonly error?: unknown;
    };

/**
 * The result of {@link MessageBus.publishOutbound}: handed to the channel's adapter (`sent`),
 * queued for an outbound consumer (`queued`), or refused.
 *
 * @example
 * ```ts
 * import type { OutboundResult } from '@parley/bus';
 *
 * const failed: OutboundResult = { status: 'rejected', code: 'send_failed', error: new Error('429') };
 * ```
 */
export type OutboundResult =
  | {
      readonly status: 'sent' | 'queued';
      readonly message: OutboundMessage;
      /** With `sent`: the platform's stamp of the message, when the adapter reported a finite one. */
      readonly sentAt?: number | undefined;
      /** With `sent`: the message's place in the platform's per-chat order, when the adapter reported a valid one. */
      readonly order?: PlatformOrder | undefined;
      /** With `sent`: the platform's id of the message, when the adapter reported one (1–256 characters). */
      readonly messageId?: string | undefined;
    }
  | {
      readonly status: 'rejected';
      readonly code: Exclude<PublishRefusalCode, 'interceptor_failed'>;
      readonly message?: OutboundMessage;
      readonly error?: unknown;
    };
