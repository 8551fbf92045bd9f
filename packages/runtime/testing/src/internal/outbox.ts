import type { OutboundMessage } from '@parley/bus';
import type { OutboxFilter } from '../channel-types.js';

export function matchesFilter(message: OutboundMessage, filter: OutboxFilter): boolean {
  return (
    (filter.chatId === undefined || message.chatId === filter.chatId) &&
    (filter.threadId === undefined || message.threadId === filter.threadId)
  );
}

/** Everything a person would read in a message: its text, and its card's title, body and button labels. */
export function readableText(message: OutboundMessage): string {
  const card = message.card;
  if (card === undefined) return message.text;
  return [message.text, card.title ?? '', card.body ?? '', ...card.buttons.map((b) => b.label)].join('\n');
}

/** One line per message for failure messages: `[feishu:g1] "text" card "title" [确认 | 取消]`. */
export function renderMessage(message: OutboundMessage): string {
  const text = JSON.stringify(message.text.length > 120 ? `${message.text.slice(0, 119)}…` : message.text);
  const card =
    message.card === undefined
      ? ''
      : ` card${message.card.title === undefined ? '' : ` ${JSON.stringify(message.card.title)}`} [${message.card.buttons.map((b) => b.label).join(' | ')}]`;
  return `[${message.sessionKey}] ${text}${card}`;
}
