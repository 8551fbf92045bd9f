import type { OutboundMessage, SendReceipt } from '@parley/bus';
import type { Api } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import { orderOf } from '../inbound.js';
import { replyTarget, splitText, textOf } from '../outbound.js';
import { toAdapterError } from '../platform-errors.js';

/**
 * Sends an outbound message with `sendMessage`, in pieces when its text is long; the buttons go on
 * the last piece, the reply target on the first.
 */
export async function sendPieces(
  api: Api,
  channel: string,
  message: OutboundMessage,
  row: InlineKeyboardButton.CallbackButton[],
): Promise<SendReceipt> {
  const pieces = splitText(textOf(message));
  const chatId = /^-?\d+$/.test(message.chatId) ? Number(message.chatId) : message.chatId;
  const replyTo = replyTarget(message);
  let date = 0;
  let messageId = '';
  let order: SendReceipt['order'];
  for (const [i, piece] of pieces.entries()) {
    const last = i === pieces.length - 1;
    try {
      const sent = await api.sendMessage(chatId, piece, {
        ...(message.threadId === undefined ? {} : { message_thread_id: Number(message.threadId) }),
        ...(replyTo === undefined || i > 0 ? {} : { reply_parameters: { message_id: replyTo } }),
        ...(row.length === 0 || !last ? {} : { reply_markup: { inline_keyboard: [row] } }),
      });
      date = sent.date;
      messageId = String(sent.message_id);
      order = orderOf(channel, sent.chat?.id, sent.message_id); // the last piece: the whole prompt is out
    } catch (error) {
      throw toAdapterError(error);
    }
  }
  // `date` has whole seconds: the message reached Telegram at the latest by the end of that
  // second, so a reply stamped in the same second never counts as written after it.
  return { sentAt: date * 1000 + 999, order, ...(messageId === '' ? {} : { messageId }) };
}
