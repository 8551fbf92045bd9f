import { createEmitter, systemClock, type Unsubscribe } from '@parley/core';
import type { ChannelAdapter } from './adapter.js';
import { BusError } from './errors.js';
import { toInboundMessage, toOutboundMessage } from './internal/copy.js';
import { WaitQueue } from './internal/queue.js';
import { validateInbound, validateOutbound } from './internal/validate.js';
import type { InboundInput, InboundMessage, OutboundMessage } from './message.js';
import { isPlatformOrder, type PlatformOrder } from './order.js';
import { sessionKeyOf } from './session-key.js';
import {
  type BusEvents,
  DEFAULT_QUEUE_CAPACITY,
  type InboundInterceptor,
  type MessageBus,
  type MessageBusOptions,
  OVERFLOW_POLICIES,
} from './types.js';
import type { PublishRefusalCode, PublishResult } from './results.js';

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
  const clock = options.clock ?? systemClock;
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
  const events = createEmitter<BusEvents>(
    options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
  );
  const inboundQueue = new WaitQueue<InboundMessage>(capacity);
  const outboundQueue = new WaitQueue<OutboundMessage>(capacity);
  const adapters = new Map<string, ChannelAdapter>();
  const disconnects = new Map<string, () => void>();
  let interceptors: readonly InboundInterceptor[] = [];
  let closed = false;

  function drop<R>(
    direction: 'inbound' | 'outbound',
    code: PublishRefusalCode,
    message: InboundMessage | OutboundMessage | undefined,
    extra: { by?: string; error?: unknown } = {},
  ): R {
    // Built field by field, not by spreading: see internal/copy.ts.
    const result: { status: 'rejected'; code: PublishRefusalCode; [key: string]: unknown } = {
      status: 'rejected',
      code,
    };
    if (message !== undefined) result['message'] = message;
    if ('by' in extra) result['by'] = extra.by;
    if ('error' in extra) result['error'] = extra.error;
    if (events.listenerCount('dropped') > 0) {
      const { status: _, ...payload } = result;
      events.emit('dropped', { direction, ...payload } as BusEvents['dropped']); // the same fields, typed above
    }
    return result as R; // the caller picks which result union this belongs to
  }

  function offer<T extends InboundMessage | OutboundMessage>(
    queue: WaitQueue<T>,
    direction: 'inbound' | 'outbound',
    message: T,
  ): boolean {
    if (queue.offer(message)) return true;
    if (overflow === 'reject') return false;
    const evicted = queue.poll() as T; // full, so there is an oldest
    queue.offer(message);
    drop(direction, 'queue_full', evicted);
    return true;
  }

  function enqueue(message: InboundMessage): PublishResult {
    if (closed) return drop('inbound', 'closed', message);
    if (!offer(inboundQueue, 'inbound', message)) return drop('inbound', 'queue_full', message);
    return { status: 'queued', message };
  }

  function intercepted(message: InboundMessage, by: string): PublishResult {
    events.emit('intercepted', { message, by });
    return { status: 'intercepted', message, by };
  }

  function run(
    message: InboundMessage,
    list: readonly InboundInterceptor[],
    from: number,
  ): PublishResult | Promise<PublishResult> {
    for (let i = from; i < list.length; i++) {
      const interceptor = list[i] as InboundInterceptor;
      let verdict: boolean | Promise<boolean>;
      try {
        verdict = interceptor.intercept(message);
      } catch (error) {
        return drop('inbound', 'interceptor_failed', message, { by: interceptor.name, error });
      }
      if (verdict === true) return intercepted(message, interceptor.name);
      if (verdict !== false && typeof verdict?.then === 'function') {
        return verdict.then(
          (consumed) =>
            consumed === true ? intercepted(message, interceptor.name) : run(message, list, i + 1),
          (error: unknown) => drop('inbound', 'interceptor_failed', message, { by: interceptor.name, error }),
        );
      }
    }
    return enqueue(message);
  }

  /** Publishes an inbound input on `channel` (the adapter's, or the input's own). */
  function publish(input: Omit<InboundInput, 'channel'>, channel: string): Promise<PublishResult> {
    const problem = validateInbound(input, channel);
    if (problem !== undefined) {
      return Promise.resolve(drop('inbound', 'invalid_message', undefined, { error: problem }));
    }
    const sessionKey = sessionKeyOf({ channel, chatId: input.chatId, threadId: input.threadId });
    const message = toInboundMessage(input, channel, sessionKey, clock.now());
    if (closed) return Promise.resolve(drop('inbound', 'closed', message));
    return Promise.resolve(run(message, interceptors, 0));
  }

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

  const bus: MessageBus = {
    publishInbound: (input) => publish(input, input?.channel),
    receiveInbound: (receive = {}) => inboundQueue.take(receive.signal),
    inbound: (receive = {}) => iterate(inboundQueue, receive.signal),
    async publishOutbound(input) {
      const problem = validateOutbound(input);
      if (problem !== undefined) return drop('outbound', 'invalid_message', undefined, { error: problem });
      const message = toOutboundMessage(input, sessionKeyOf(input), clock.now());
      if (closed) return drop('outbound', 'closed', message);
      const adapter = adapters.get(message.channel);
      if (adapter === undefined) {
        if (!offer(outboundQueue, 'outbound', message)) return drop('outbound', 'queue_full', message);
        return { status: 'queued', message };
      }
      let receipt: unknown;
      try {
        receipt = await adapter.send(message);
      } catch (error) {
        return drop('outbound', 'send_failed', message, { error });
      }
      // an adapter's receipt, or nothing
      const { sentAt, order, messageId } = (receipt ?? {}) as {
        sentAt?: unknown;
        order?: unknown;
        messageId?: unknown;
      };
      const sent: {
        status: 'sent';
        message: OutboundMessage;
        sentAt?: number;
        order?: PlatformOrder;
        messageId?: string;
      } = {
        status: 'sent',
        message,
      };
      if (typeof sentAt === 'number' && Number.isFinite(sentAt)) sent.sentAt = sentAt;
      if (isPlatformOrder(order)) sent.order = { scope: order.scope, position: [...order.position] };
      if (typeof messageId === 'string' && messageId !== '' && messageId.length <= 256)
        sent.messageId = messageId;
      return sent;
    },
    receiveOutbound: (receive = {}) => outboundQueue.take(receive.signal),
    outbound: (receive = {}) => iterate(outboundQueue, receive.signal),
    intercept(interceptor) {
      interceptors = [...interceptors, interceptor];
      return () => {
        interceptors = interceptors.filter((item) => item !== interceptor);
      };
    },
    async attach(adapter) {
      const { channel } = adapter;
      if (closed) throw new BusError('closed', 'The bus is closed');
      if (adapters.has(channel)) {
        throw new BusError('channel_taken', `An adapter is already attached for channel ${channel}`, {
          details: { channel },
        });
      }
      adapters.set(channel, adapter);
      let disconnect: Unsubscribe | undefined;
      try {
        const stop = await adapter.connect?.((input) => publish(input, channel));
        if (typeof stop === 'function') disconnect = stop;
      } catch (error) {
        adapters.delete(channel);
        throw error;
      }
      if (closed) {
        // close() ran while the adapter was connecting: it found nothing to disconnect.
        adapters.delete(channel);
        disconnect?.();
        throw new BusError('closed', 'The bus closed while the adapter was connecting', {
          details: { channel },
        });
      }
      let attached = true;
      const detach = (): void => {
        if (!attached) return;
        attached = false;
        adapters.delete(channel);
        disconnects.delete(channel);
        disconnect?.();
      };
      disconnects.set(channel, detach);
      return detach;
    },
    on: (event, listener) => events.on(event, listener),
    get size() {
      return { inbound: inboundQueue.size, outbound: outboundQueue.size };
    },
    get closed() {
      return closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const detach of [...disconnects.values()]) detach();
      inboundQueue.close();
      outboundQueue.close();
    },
  };
  return bus;
}
