import type { Clock, Emitter, Unsubscribe } from '@parley/core';
import type { ChannelAdapter } from './adapter.js';
import type { OutboundResult, PublishRefusalCode, PublishResult } from './results.js';
import type { InboundInput, InboundMessage, OutboundInput, OutboundMessage } from './message.js';

/**
 * What a full queue does with one more message: `reject` refuses the new one (the publisher gets
 * a `queue_full` result), `drop-oldest` evicts the oldest queued one to make room.
 *
 * @example
 * ```ts
 * import { OVERFLOW_POLICIES } from '@parley/bus';
 *
 * console.log(OVERFLOW_POLICIES); // [ 'reject', 'drop-oldest' ]
 * ```
 */
export const OVERFLOW_POLICIES = ['reject', 'drop-oldest'] as const;

/**
 * One of {@link OVERFLOW_POLICIES}.
 *
 * @example
 * ```ts
 * import type { OverflowPolicy } from '@parley/bus';
 *
 * const policy: OverflowPolicy = 'drop-oldest';
 * ```
 */
export type OverflowPolicy = (typeof OVERFLOW_POLICIES)[number];

/**
 * The default capacity of each of the bus's two queues.
 *
 * @example
 * ```ts
 * import { DEFAULT_QUEUE_CAPACITY } from '@parley/bus';
 *
 * console.log(DEFAULT_QUEUE_CAPACITY); // 1000
 * ```
 */
export const DEFAULT_QUEUE_CAPACITY = 1000;

/**
 * Something that sees every inbound message before it is queued and may consume it.
 *
 * Return `true` to consume the message (it never reaches a consumer), `false` to let it pass.
 * Interceptors run in the order they were added; the first to consume wins. One that throws or
 * rejects makes the bus drop the message (`interceptor_failed`): fail closed.
 *
 * @example
 * ```ts
 * import type { InboundInterceptor } from '@parley/bus';
 *
 * const muteBots: InboundInterceptor = { name: 'mute-bots', intercept: (message) => message.senderIsBot === true };
 * ```
 */
export interface InboundInterceptor {
  readonly name: string;
  /** Returns (or resolves to) `true` to consume the message, so it is never queued for the agent. */
  intercept(message: InboundMessage): boolean | Promise<boolean>;
}

/**
 * The events of a {@link MessageBus}.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 *
 * const bus = createMessageBus({ capacity: 1 });
 * bus.on('dropped', ({ direction, code }) => console.log(direction, code));
 * await bus.publishInbound({ channel: 'c', chatId: '1', senderId: 'u', text: 'a' });
 * await bus.publishInbound({ channel: 'c', chatId: '1', senderId: 'u', text: 'b' }); // prints "inbound queue_full"
 * ```
 */
export interface BusEvents {
  /** An interceptor consumed an inbound message. */
  intercepted: { readonly message: InboundMessage; readonly by: string };
  /** A message was refused or evicted; `message` is absent when it could not even be read. */
  dropped: {
    readonly direction: 'inbound' | 'outbound';
    readonly code: PublishRefusalCode;
    readonly message?: InboundMessage | OutboundMessage;
    readonly by?: string;
    readonly error?: unknown;
  };
}

/**
 * Options for {@link createMessageBus}.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import type { MessageBusOptions } from '@parley/bus';
 *
 * const options: MessageBusOptions = { clock: createManualClock(), capacity: 500, overflow: 'drop-oldest' };
 * ```
 */
export interface MessageBusOptions {
  /** Stamps `receivedAt` and `createdAt`; the system clock by default. */
  readonly clock?: Clock;
  /** Most messages each queue (inbound, outbound) holds; {@link DEFAULT_QUEUE_CAPACITY} by default. */
  readonly capacity?: number;
  /** What a full queue does; `reject` by default. */
  readonly overflow?: OverflowPolicy;
  /** Receives errors thrown by event listeners. */
  readonly onListenerError?: (error: unknown, event: string) => void;
}

/**
 * Options for receiving from a {@link MessageBus}.
 *
 * @example
 * ```ts
 * import type { ReceiveOptions } from '@parley/bus';
 *
 * const options: ReceiveOptions = { signal: AbortSignal.timeout(1000) };
 * ```
 */
export interface ReceiveOptions {
  readonly signal?: AbortSignal;
}

/**
 * An inbound / outbound message bus for one bot: adapters publish what users say, interceptors
 * may consume it, the agent consumes the rest; what the agent says goes out through the adapter
 * of its channel.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 *
 * const bus = createMessageBus();
 * await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hello' });
 * for await (const message of bus.inbound()) {
 *   console.log(message.text); // hello
 *   break;
 * }
 * ```
 */
export interface MessageBus {
  /** Runs the interceptors, then queues the message for consumers; never throws. */
  publishInbound(input: InboundInput): Promise<PublishResult>;
  /** The next inbound message; waits for one. Rejects `closed` or `cancelled`. */
  receiveInbound(options?: ReceiveOptions): Promise<InboundMessage>;
  /** Inbound messages as an async iterable; it ends when the bus closes or the signal aborts. */
  inbound(options?: ReceiveOptions): AsyncIterableIterator<InboundMessage>;
  /** Sends through the channel's adapter, or queues for {@link MessageBus.outbound}; never throws. */
  publishOutbound(input: OutboundInput): Promise<OutboundResult>;
  /** The next queued outbound message (channels without an adapter). Rejects `closed` or `cancelled`. */
  receiveOutbound(options?: ReceiveOptions): Promise<OutboundMessage>;
  /** Queued outbound messages as an async iterable. */
  outbound(options?: ReceiveOptions): AsyncIterableIterator<OutboundMessage>;
  /** Adds an interceptor after the existing ones; returns a function that removes it. */
  intercept(interceptor: InboundInterceptor): Unsubscribe;
  /** Connects an adapter; resolves to a function that detaches it. Rejects `channel_taken`, `closed`. */
  attach(adapter: ChannelAdapter): Promise<Unsubscribe>;
  /** Subscribes to {@link BusEvents}. */
  on: Emitter<BusEvents>['on'];
  /** Messages waiting in each queue. */
  readonly size: { readonly inbound: number; readonly outbound: number };
  readonly closed: boolean;
  /** Detaches every adapter, refuses further publishes and ends consumers once queues are drained. */
  close(): Promise<void>;
}
