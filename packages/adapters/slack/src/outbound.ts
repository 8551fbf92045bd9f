import type { OutboundCard, OutboundMessage } from '@parley/bus';
import { SlackAdapterError } from './errors.js';
import { ACTION_PREFIX, MAX_BUTTON_VALUE_LENGTH } from './inbound.js';

/** Slack's limits on Block Kit fields, in characters. */
const MAX_BUTTON_LABEL_LENGTH = 75;
const MAX_HEADER_LENGTH = 150;
const MAX_SECTION_LENGTH = 3000;

/** A Block Kit block, as `chat.postMessage` takes it. */
export type Block = { readonly [key: string]: unknown };

/** The `chat.postMessage` arguments for one outbound message. */
export interface PostMessage {
  readonly channel: string;
  readonly text: string;
  readonly thread_ts?: string;
  readonly blocks?: Block[];
}

/** Escapes what Slack reads as markup in `text`: `&`, `<` and `>`. */
function escapeText(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Cuts `value` into pieces of at most `size` characters, never inside a surrogate pair. */
function pieces(value: string, size: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < value.length) {
    let end = Math.min(at + size, value.length);
    const last = value.charCodeAt(end - 1);
    if (end < value.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(value.slice(at, end));
    at = end;
  }
  return out;
}

const plain = (value: string): Block => ({ type: 'plain_text', text: value, emoji: true });

/**
 * The card as Block Kit: a header (its title), plain-text sections holding the whole body (several
 * when it is longer than a section holds: nothing is cut), and an actions block of buttons whose
 * values are their JSON.
 */
export function toBlocks(card: OutboundCard, fallback: string): Block[] {
  const blocks: Block[] = [];
  if (card.title !== undefined && card.title !== '') {
    blocks.push({ type: 'header', text: plain(Array.from(card.title).slice(0, MAX_HEADER_LENGTH).join('')) });
  }
  const body = card.body !== undefined && card.body !== '' ? card.body : fallback;
  for (const piece of pieces(body, MAX_SECTION_LENGTH)) blocks.push({ type: 'section', text: plain(piece) });
  if (card.buttons.length > 0) {
    blocks.push({
      type: 'actions',
      elements: card.buttons.map((button, i) => {
        const value = JSON.stringify(button.value);
        if (value.length > MAX_BUTTON_VALUE_LENGTH) {
          throw new SlackAdapterError(
            'button_value_too_long',
            `The button "${button.label}" carries ${value.length} characters; Slack allows ${MAX_BUTTON_VALUE_LENGTH}`,
            { details: { label: button.label, length: value.length, limit: MAX_BUTTON_VALUE_LENGTH } },
          );
        }
        if (button.label.length > MAX_BUTTON_LABEL_LENGTH) {
          throw new SlackAdapterError(
            'button_label_too_long',
            `The button label "${button.label}" is longer than Slack's ${MAX_BUTTON_LABEL_LENGTH} characters`,
            { details: { label: button.label, length: button.label.length, limit: MAX_BUTTON_LABEL_LENGTH } },
          );
        }
        const style = button.style === 'primary' || button.style === 'danger' ? { style: button.style } : {};
        return {
          type: 'button',
          action_id: `${ACTION_PREFIX}${i}`,
          text: plain(button.label),
          value,
          ...style,
        };
      }),
    });
  }
  return blocks;
}

/** The `chat.postMessage` arguments: the text (escaped), the thread, and the card as blocks. */
export function toPostMessage(message: OutboundMessage): PostMessage {
  const fallback =
    message.text !== ''
      ? message.text
      : [message.card?.title, message.card?.body].filter((p) => p !== undefined && p !== '').join('\n');
  return {
    channel: message.chatId,
    text: escapeText(fallback),
    ...(message.threadId === undefined ? {} : { thread_ts: message.threadId }),
    ...(message.card === undefined ? {} : { blocks: toBlocks(message.card, message.text) }),
  };
}
