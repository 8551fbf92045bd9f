import type { InboundInput, InboundMessage, OutboundInput, OutboundMessage } from '../message.js';

// Messages are built field by field rather than with `{ ...input, extra }`: V8 (Node 20) takes a
// slow runtime path, about a microsecond per added property, for an object literal that adds
// properties after a spread, and that cost dominated publishing. Only the fields the interfaces
// name are copied (optional ones when set), so the bus never carries arbitrary keys along.

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The inbound message for a validated input, with its channel, session key and arrival time. */
export function toInboundMessage(
  input: Omit<InboundInput, 'channel'>,
  channel: string,
  sessionKey: string,
  receivedAt: number,
): InboundMessage {
  const message: Writable<InboundMessage> = {
    channel,
    chatId: input.chatId,
    senderId: input.senderId,
    text: input.text ?? '',
    kind: input.kind ?? 'message',
    sessionKey,
    receivedAt,
  };
  if (input.threadId !== undefined) message.threadId = input.threadId;
  if (input.eventId !== undefined) message.eventId = input.eventId;
  if (input.createdAt !== undefined) message.createdAt = input.createdAt;
  if (input.order !== undefined)
    message.order = { scope: input.order.scope, position: [...input.order.position] };
  if (input.senderIsBot !== undefined) message.senderIsBot = input.senderIsBot;
  if (input.fromSelf !== undefined) message.fromSelf = input.fromSelf;
  if (input.action !== undefined) message.action = input.action;
  if (input.raw !== undefined) message.raw = input.raw;
  return message;
}

/** The outbound message for a validated input, with its session key and publication time. */
export function toOutboundMessage(
  input: OutboundInput,
  sessionKey: string,
  createdAt: number,
): OutboundMessage {
  const message: Writable<OutboundMessage> = {
    channel: input.channel,
    chatId: input.chatId,
    text: input.text,
    sessionKey,
    createdAt,
  };
  if (input.threadId !== undefined) message.threadId = input.threadId;
  if (input.card !== undefined) message.card = input.card;
  if (input.replyTo !== undefined) message.replyTo = input.replyTo;
  if (input.metadata !== undefined) message.metadata = input.metadata;
  return message;
}
