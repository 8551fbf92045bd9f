import type { OutboundMessage } from '@parley/bus';

/** The Bot API's limit on a message's text, in characters (UTF-16 code units). */
export const MAX_TEXT_LENGTH = 4096;

/** The text an outbound message shows: its text, or the card's title and body when it has none. */
export function textOf(message: OutboundMessage): string {
  if (message.text !== '') return message.text;
  return [message.card?.title, message.card?.body]
    .filter((part) => part !== undefined && part !== '')
    .join('\n');
}

/**
 * The text in pieces of at most {@link MAX_TEXT_LENGTH} characters, never splitting a surrogate
 * pair: nothing is cut, a long prompt goes out as several messages.
 */
export function splitText(text: string): string[] {
  if (text.length <= MAX_TEXT_LENGTH) return [text];
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + MAX_TEXT_LENGTH, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--; // keep the pair together
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

/** The `reply_parameters` for a message answering an inbound message of the same chat. */
export function replyTarget(message: OutboundMessage): number | undefined {
  // Inbound message event ids are `chat:message_id` (see inbound.ts).
  const match = /^(-?\d+):(\d+)$/.exec(message.replyTo ?? '');
  return match !== null && match[1] === message.chatId ? Number(match[2]) : undefined;
}
