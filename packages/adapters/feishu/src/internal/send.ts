import type { OutboundMessage, SendReceipt } from '@parley/bus';
import { toRememberedId } from '@parley/bus';
import type { RecentMap } from '@parley/core';
import { createTimeOrder, type MessagePlace } from '../inbound.js';
import { type FeishuMessageBody, toFeishuMessage } from '../outbound.js';
import type { FeishuApiAnswer, FeishuClient } from '../types.js';
import { toFeishuError } from './failure.js';

/** What a send reads and writes: the client, and the adapter's memory of messages and events. */
export interface SendPlaces {
  readonly client: FeishuClient;
  readonly channel: string;
  /** Where each message is, keyed by `toRememberedId(messageId)`; a send records its own message. */
  readonly places: RecentMap<string, MessagePlace>;
  /** The message id of each inbound event, keyed by `toRememberedId(eventId)`. */
  readonly messageOfEvent: RecentMap<string, string>;
}

/**
 * Sends an outbound message as a new chat message, or as a reply to its thread or to the message
 * of the event it answers, and reports when Feishu created it.
 */
export async function sendMessage(at: SendPlaces, message: OutboundMessage): Promise<SendReceipt> {
  const body = toFeishuMessage(message);
  const operation =
    message.threadId === undefined && message.replyTo === undefined
      ? 'im.message.create'
      : 'im.message.reply';
  let answer: FeishuApiAnswer;
  try {
    answer = await call(at, body, message.chatId, message.threadId, message.replyTo);
  } catch (error) {
    throw toFeishuError(error, operation);
  }
  if (answer?.code !== 0) throw toFeishuError(answer, operation);
  const data = (answer.data ?? {}) as { message_id?: unknown; create_time?: unknown };
  if (typeof data.message_id === 'string') {
    at.places.set(toRememberedId(data.message_id), { chatId: message.chatId, threadId: message.threadId });
  }
  const sentAt = Number(data.create_time);
  const order = createTimeOrder(at.channel, message.chatId, data.create_time); // a reply stays in its chat
  return {
    ...(Number.isFinite(sentAt) && sentAt > 0 ? { sentAt } : {}),
    order,
    ...(typeof data.message_id === 'string' ? { messageId: data.message_id } : {}),
  };
}

async function call(
  at: SendPlaces,
  body: FeishuMessageBody,
  chatId: string,
  threadId: string | undefined,
  replyTo: string | undefined,
): Promise<FeishuApiAnswer> {
  const target =
    threadId ?? (replyTo === undefined ? undefined : at.messageOfEvent.get(toRememberedId(replyTo)));
  if (target === undefined) {
    return at.client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: chatId, ...body },
    });
  }
  return at.client.im.message.reply({
    path: { message_id: target },
    data: threadId === undefined ? body : { ...body, reply_in_thread: true },
  });
}
