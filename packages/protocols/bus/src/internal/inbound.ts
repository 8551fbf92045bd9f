import type { InboundInput, InboundMessage } from '../message.js';
import type { PublishResult } from '../results.js';
import { sessionKeyFrom } from '../session-key.js';
import type { InboundInterceptor } from '../types.js';
import { toInboundMessage } from './copy.js';
import { type BusState, drop, offer } from './state.js';
import { validateInbound } from './validate.js';

/** Publishes an inbound input on `channel` (the adapter's, or the input's own). */
export function publishInbound(
  state: BusState,
  input: Omit<InboundInput, 'channel'>,
  channel: string,
): Promise<PublishResult> {
  const problem = validateInbound(input, channel);
  if (problem !== undefined) {
    return Promise.resolve(drop(state, 'inbound', 'invalid_message', undefined, { error: problem }));
  }
  const sessionKey = sessionKeyFrom(channel, input.chatId, input.threadId);
  const message = toInboundMessage(input, channel, sessionKey, state.clock.now());
  if (state.closed) return Promise.resolve(drop(state, 'inbound', 'closed', message));
  return Promise.resolve(intercept(state, message, state.interceptors, 0));
}

/** Runs the interceptors from `from` on; the first that consumes the message ends the walk. */
function intercept(
  state: BusState,
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
      return drop(state, 'inbound', 'interceptor_failed', message, { by: interceptor.name, error });
    }
    if (verdict === true) return intercepted(state, message, interceptor.name);
    if (verdict !== false && typeof verdict?.then === 'function') {
      return verdict.then(
        (consumed) =>
          consumed === true
            ? intercepted(state, message, interceptor.name)
            : intercept(state, message, list, i + 1),
        (error: unknown) =>
          drop(state, 'inbound', 'interceptor_failed', message, { by: interceptor.name, error }),
      );
    }
  }
  return enqueue(state, message);
}

function enqueue(state: BusState, message: InboundMessage): PublishResult {
  if (state.closed) return drop(state, 'inbound', 'closed', message);
  if (!offer(state, state.inboundQueue, 'inbound', message))
    return drop(state, 'inbound', 'queue_full', message);
  return { status: 'queued', message };
}

function intercepted(state: BusState, message: InboundMessage, by: string): PublishResult {
  state.events.emit('intercepted', { message, by });
  return { status: 'intercepted', message, by };
}
