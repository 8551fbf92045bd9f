import { INBOUND_KINDS, type InboundInput, type OutboundInput } from '../message.js';
import { isPlatformOrder } from '../order.js';

/**
 * Checks an adapter's input at run time (adapters are often plain JS); returns what is wrong.
 * `channel` is the one it is published on: the adapter's, or the input's own.
 */
export function validateInbound(input: Omit<InboundInput, 'channel'>, channel: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return 'the message is not an object';
  const address = checkAddress(channel, input.chatId, input.threadId);
  if (address !== undefined) return address;
  if (!isId(input.senderId)) return 'senderId must be a non-empty string';
  if (input.text !== undefined && typeof input.text !== 'string') return 'text must be a string';
  if (input.kind !== undefined && !INBOUND_KINDS.includes(input.kind))
    return `unknown kind ${String(input.kind)}`;
  if (input.createdAt !== undefined && !Number.isFinite(input.createdAt))
    return 'createdAt must be a finite number';
  if (input.order !== undefined && !isPlatformOrder(input.order))
    return 'order must be a scope and one to four finite numbers';
  if (input.eventId !== undefined && !isId(input.eventId)) return 'eventId must be a non-empty string';
  return undefined;
}

/** Checks an outbound message; returns what is wrong. */
export function validateOutbound(input: OutboundInput): string | undefined {
  if (typeof input !== 'object' || input === null) return 'the message is not an object';
  const address = checkAddress(input.channel, input.chatId, input.threadId);
  if (address !== undefined) return address;
  if (typeof input.text !== 'string') return 'text must be a string';
  if (input.card !== undefined && !Array.isArray(input.card?.buttons)) return 'card.buttons must be an array';
  return undefined;
}

/** Checks an address given by its parts (so both directions' message shapes never meet here). */
function checkAddress(channel: unknown, chatId: unknown, threadId: unknown): string | undefined {
  if (!isId(channel)) return 'channel must be a non-empty string';
  if (!isId(chatId)) return 'chatId must be a non-empty string';
  if (threadId !== undefined && !isId(threadId)) return 'threadId must be a non-empty string';
  return undefined;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
