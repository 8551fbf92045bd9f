import type { OutboundInput, OutboundMessage } from '../message.js';
import { isPlatformOrder, type PlatformOrder } from '../order.js';
import type { OutboundResult } from '../results.js';
import { sessionKeyFrom } from '../session-key.js';
import { toOutboundMessage } from './copy.js';
import { type BusState, drop, offer } from './state.js';
import { validateOutbound } from './validate.js';

/** Hands an outbound message to its channel's adapter, or queues it when none is attached. */
export async function publishOutbound(state: BusState, input: OutboundInput): Promise<OutboundResult> {
  const problem = validateOutbound(input);
  if (problem !== undefined) return drop(state, 'outbound', 'invalid_message', undefined, { error: problem });
  const key = sessionKeyFrom(input.channel, input.chatId, input.threadId);
  const message = toOutboundMessage(input, key, state.clock.now());
  if (state.closed) return drop(state, 'outbound', 'closed', message);
  const adapter = state.adapters.get(message.channel);
  if (adapter === undefined) {
    if (!offer(state, state.outboundQueue, 'outbound', message))
      return drop(state, 'outbound', 'queue_full', message);
    return { status: 'queued', message };
  }
  let receipt: unknown;
  try {
    receipt = await adapter.send(message);
  } catch (error) {
    return drop(state, 'outbound', 'send_failed', message, { error });
  }
  return sentResult(message, receipt);
}

/** The `sent` result, with what of the adapter's receipt is valid (a finite stamp, an order, an id). */
function sentResult(message: OutboundMessage, receipt: unknown): OutboundResult {
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
}
