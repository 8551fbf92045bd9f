/**
 * An inbound / outbound message bus for chat bots: session keys (channel + chat + thread),
 * interceptors that may consume an inbound message before it is queued, async consumption,
 * bounded queues with an overflow policy, a hygiene interceptor, and the `ChannelAdapter`
 * interface a real bot implements in a few lines.
 *
 * @packageDocumentation
 * @module @parley/bus
 */
export { createMessageBus } from './bus.js';
export { OVERFLOW_POLICIES, DEFAULT_QUEUE_CAPACITY } from './types.js';
export { PUBLISH_REFUSAL_CODES } from './results.js';
export type { PublishResult, OutboundResult, PublishRefusalCode } from './results.js';
export type {
  MessageBus,
  MessageBusOptions,
  BusEvents,
  InboundInterceptor,
  OverflowPolicy,
  ReceiveOptions,
} from './types.js';
export type { ChannelAdapter, DeliverInbound, SendReceipt } from './adapter.js';
export { comparePlatformOrder, isPlatformOrder, MAX_ORDER_POSITION_LENGTH } from './order.js';
export type { PlatformOrder, OrderComparison } from './order.js';
export { INBOUND_KINDS } from './message.js';
export type {
  InboundKind,
  InboundInput,
  InboundMessage,
  OutboundInput,
  OutboundMessage,
  OutboundCard,
  CardButton,
} from './message.js';
export { sessionKeyOf, parseSessionKey } from './session-key.js';
export type { SessionAddress } from './session-key.js';
export { createHygieneInterceptor, HYGIENE_DROP_REASONS } from './hygiene.js';
export type { HygieneOptions, HygieneDropReason, HygieneInterceptor } from './hygiene.js';
export { toRememberedId, MAX_REMEMBERED_ID_LENGTH } from './remembered-id.js';
export {
  dispatchBySession,
  DEFAULT_MAX_CONCURRENT_SESSIONS,
  DEFAULT_MAX_QUEUED_PER_SESSION,
} from './dispatch.js';
export type { DispatchBySessionOptions, SessionDispatcher, SessionDispatchEvents } from './dispatch.js';
export { BusError, BUS_ERROR_CODES } from './errors.js';
export type { BusErrorCode } from './errors.js';
