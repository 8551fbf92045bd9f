import { createEmitter, systemClock } from '@parley/core';
import { BusError } from './errors.js';
import { attachAdapter } from './internal/attach.js';
import { publishInbound } from './internal/inbound.js';
import { publishOutbound } from './internal/outbound.js';
import { WaitQueue } from './internal/queue.js';
import type { BusState } from './internal/state.js';
import type { InboundMessage, OutboundMessage } from './message.js';
import {
  type BusEvents,
  DEFAULT_QUEUE_CAPACITY,
  type MessageBus,
  type MessageBusOptions,
  OVERFLOW_POLICIES,
  type OverflowPolicy,
} from './types.js';

/**
 * Creates a {@link MessageBus} with two bounded queues and the overflow policy chosen.
 *
 * Use one per bot process. A peer's malformed event, a full queue, a failing interceptor or a
 * failing send comes back as a `rejected` result plus a `dropped` event, so a webhook handler can
 * always answer its platform.
 *
 * @throws BusError `invalid_argument` for a capacity that is not a positive integer or an unknown policy.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 *
 * const bus = createMessageBus({ capacity: 100, overflow: 'drop-oldest' });
 * bus.intercept({ name: 'ping', intercept: (message) => message.text === '/ping' });
 * const result = await bus.publishInbound({ channel: 'tg', chatId: '42', senderId: '7', text: '/ping' });
 * console.log(result.status); // intercepted
 * console.log(bus.size.inbound); // 0
 * ```
 */
export function createMessageBus(options: MessageBusOptions = {}): MessageBus {
  const { capacity, overflow } = checkOptions(options);
  const state: BusState = {
    clock: options.clock ?? systemClock,
    overflow,
    events: createEmitter<BusEvents>(
      options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
    ),
    inboundQueue: new WaitQueue<InboundMessage>(capacity),
    outboundQueue: new WaitQueue<OutboundMessage>(capacity),
    adapters: new Map(),
    disconnects: new Map(),
    interceptors: [],
    closed: false,
  };
  const { inboundQueue, outboundQueue } = state;
  return {
    publishInbound: (input) => publishInbound(state, input, input?.channel),
    receiveInbound: (receive = {}) => inboundQueue.take(receive.signal),
    inbound: (receive = {}) => iterate(inboundQueue, receive.signal),
    publishOutbound: (input) => publishOutbound(state, input),
    receiveOutbound: (receive = {}) => outboundQueue.take(receive.signal),
    outbound: (receive = {}) => iterate(outboundQueue, receive.signal),
    intercept(interceptor) {
      state.interceptors = [...state.interceptors, interceptor];
      return () => {
        state.interceptors = state.interceptors.filter((item) => item !== interceptor);
      };
    },
    attach: (adapter) => attachAdapter(state, adapter),
    on: (event, listener) => state.events.on(event, listener),
    get size() {
      return { inbound: inboundQueue.size, outbound: outboundQueue.size };
    },
    get closed() {
      return state.closed;
    },
    async close() {
      if (state.closed) return;
      state.closed = true;
      for (const detach of [...state.disconnects.values()]) detach();
      inboundQueue.close();
      outboundQueue.close();
    },
  };
}

/** The queue capacity and overflow policy, checked. */
function checkOptions(options: MessageBusOptions): { capacity: number; overflow: OverflowPolicy } {
  const capacity = options.capacity ?? DEFAULT_QUEUE_CAPACITY;
  const overflow = options.overflow ?? 'reject';
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new BusError('invalid_argument', `capacity must be a positive integer, got ${capacity}`, {
      details: { capacity },
    });
  }
  if (!OVERFLOW_POLICIES.includes(overflow)) {
    throw new BusError('invalid_argument', `Unknown overflow policy ${String(overflow)}`, {
      details: { overflow: String(overflow) },
    });
  }
  return { capacity, overflow };
}

/** The queue as an async iterable; it ends when the bus closes or the signal aborts. */
async function* iterate<T>(queue: WaitQueue<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  for (;;) {
    let item: T;
    try {
      item = await queue.take(signal);
    } catch {
      return; // closed or aborted: the loop simply ends
    }
    yield item;
  }
}
