import type { Clock, Emitter } from '@parley/core';
import type { ChannelAdapter } from '../adapter.js';
import type { InboundMessage, OutboundMessage } from '../message.js';
import type { PublishRefusalCode } from '../results.js';
import type { BusEvents, InboundInterceptor, OverflowPolicy } from '../types.js';
import type { WaitQueue } from './queue.js';

/** What one bus holds: its queues, attached adapters, interceptors and whether it is closed. */
export interface BusState {
  readonly clock: Clock;
  readonly overflow: OverflowPolicy;
  readonly events: Emitter<BusEvents>;
  readonly inboundQueue: WaitQueue<InboundMessage>;
  readonly outboundQueue: WaitQueue<OutboundMessage>;
  readonly adapters: Map<string, ChannelAdapter>;
  readonly disconnects: Map<string, () => void>;
  interceptors: readonly InboundInterceptor[];
  closed: boolean;
}

/** A refusal as the result of a publish, also reported as a `dropped` event when anyone listens. */
export function drop<R>(
  state: BusState,
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
  if (state.events.listenerCount('dropped') > 0) {
    const { status: _, ...payload } = result;
    state.events.emit('dropped', { direction, ...payload } as BusEvents['dropped']); // the same fields, typed above
  }
  return result as R; // the caller picks which result union this belongs to
}

/** Queues a message under the overflow policy: false when it is refused (`reject` and full). */
export function offer<T extends InboundMessage | OutboundMessage>(
  state: BusState,
  queue: WaitQueue<T>,
  direction: 'inbound' | 'outbound',
  message: T,
): boolean {
  if (queue.offer(message)) return true;
  if (state.overflow === 'reject') return false;
  const evicted = queue.poll() as T; // full, so there is an oldest
  queue.offer(message);
  drop(state, direction, 'queue_full', evicted);
  return true;
}
