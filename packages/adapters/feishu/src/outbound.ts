import type { CardButton, OutboundCard, OutboundMessage } from '@parley/bus';
import type { JsonValue } from '@parley/core';
import { FeishuAdapterError } from './errors.js';
import { WRAPPED_VALUE_KEY } from './inbound.js';

/**
 * The largest message content Feishu takes for a card (`msg_type: interactive`): 30 KB of JSON.
 *
 * @example
 * ```ts
 * import { FEISHU_CARD_MAX_BYTES } from '@parley/feishu';
 *
 * console.log(FEISHU_CARD_MAX_BYTES); // 30720
 * ```
 */
export const FEISHU_CARD_MAX_BYTES = 30 * 1024;

/**
 * The largest text message content Feishu takes: 150 KB of JSON.
 *
 * @example
 * ```ts
 * import { FEISHU_TEXT_MAX_BYTES } from '@parley/feishu';
 *
 * console.log(FEISHU_TEXT_MAX_BYTES); // 153600
 * ```
 */
export const FEISHU_TEXT_MAX_BYTES = 150 * 1024;

/**
 * A message body for `im/v1/messages` (create or reply): its `msg_type` and its `content`, the
 * JSON text Feishu expects.
 *
 * @example
 * ```ts
 * import type { FeishuMessageBody } from '@parley/feishu';
 *
 * const body: FeishuMessageBody = { msg_type: 'text', content: '{"text":"Done."}' };
 * ```
 */
export interface FeishuMessageBody {
  readonly msg_type: 'text' | 'interactive';
  readonly content: string;
}

/**
 * Renders an outbound message the way Feishu shows it: a `text` message, or, with a card, an
 * `interactive` card (header, the text, one button per `CardButton`, whose value comes back
 * on the click).
 *
 * Use it to see what the adapter sends, or to send it yourself. A button value that is not an
 * object travels wrapped (Feishu takes objects only) and comes back unwrapped.
 *
 * @throws FeishuAdapterError `payload_too_large` when the content is over {@link FEISHU_CARD_MAX_BYTES}
 * (a card) or {@link FEISHU_TEXT_MAX_BYTES} (text).
 * @example
 * ```ts
 * import { toFeishuMessage } from '@parley/feishu';
 *
 * const body = toFeishuMessage({
 *   channel: 'feishu', chatId: 'oc_ops', sessionKey: 'feishu:oc_ops', createdAt: 0,
 *   text: '以下操作需要确认', card: { title: 'Confirm', buttons: [{ label: '确认', value: { confirmation: 'cfm_1.confirm' } }] },
 * });
 * console.log(body.msg_type); // interactive
 * ```
 */
export function toFeishuMessage(message: OutboundMessage): FeishuMessageBody {
  const body: FeishuMessageBody =
    message.card === undefined
      ? { msg_type: 'text', content: JSON.stringify({ text: message.text }) }
      : { msg_type: 'interactive', content: JSON.stringify(cardJson(message.text, message.card)) };
  const limit = body.msg_type === 'text' ? FEISHU_TEXT_MAX_BYTES : FEISHU_CARD_MAX_BYTES;
  const bytes = new TextEncoder().encode(body.content).length;
  if (bytes > limit) {
    throw new FeishuAdapterError(
      'payload_too_large',
      `The ${body.msg_type} content takes ${bytes} bytes, over ${limit}`,
      {
        details: { bytes, limit },
      },
    );
  }
  return body;
}

const BUTTON_TYPES = { primary: 'primary', danger: 'danger', default: 'default' } as const;

function cardJson(text: string, card: OutboundCard): Record<string, JsonValue> {
  const shown = text !== '' ? text : (card.body ?? '');
  const elements: JsonValue[] = [];
  if (shown !== '') elements.push({ tag: 'div', text: { tag: 'plain_text', content: shown } });
  if (card.body !== undefined && card.body !== '' && text !== '' && !text.includes(card.body)) {
    elements.push({ tag: 'div', text: { tag: 'plain_text', content: card.body } });
  }
  if (card.buttons.length > 0) elements.push({ tag: 'action', actions: card.buttons.map(buttonJson) });
  return {
    config: { wide_screen_mode: true, update_multi: true },
    ...(card.title === undefined
      ? {}
      : { header: { title: { tag: 'plain_text', content: card.title }, template: 'orange' } }),
    elements,
  };
}

function buttonJson(button: CardButton): JsonValue {
  const { value } = button;
  const wrapped =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? value
      : { [WRAPPED_VALUE_KEY]: value };
  return {
    tag: 'button',
    text: { tag: 'plain_text', content: button.label },
    type: BUTTON_TYPES[button.style ?? 'default'],
    value: wrapped,
  };
}
