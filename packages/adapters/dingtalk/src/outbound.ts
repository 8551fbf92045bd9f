import type { OutboundMessage } from '@parley/bus';

/**
 * A robot message for the OpenAPI's robot send endpoints: a `msgKey` template and its
 * `msgParam` (JSON text).
 *
 * @example
 * ```ts
 * import type { DingTalkRobotBody } from '@parley/dingtalk';
 *
 * const body: DingTalkRobotBody = { msgKey: 'sampleText', msgParam: '{"content":"Done."}' };
 * ```
 */
export interface DingTalkRobotBody {
  readonly msgKey: 'sampleText' | 'sampleMarkdown';
  readonly msgParam: string;
}

/**
 * Renders an outbound message as a robot message: `sampleText` for text, `sampleMarkdown` (title,
 * text, then the card's body) for a card when no interactive card template is configured. The
 * buttons are left out of the markdown: the text tells the user what to reply.
 *
 * @example
 * ```ts
 * import { toRobotMessage } from '@parley/dingtalk';
 *
 * const body = toRobotMessage({ channel: 'dingtalk', chatId: 'cid1', sessionKey: 'dingtalk:cid1', createdAt: 0, text: 'Done.' });
 * console.log(body.msgKey, body.msgParam); // sampleText {"content":"Done."}
 * ```
 */
export function toRobotMessage(message: OutboundMessage): DingTalkRobotBody {
  const { card } = message;
  if (card === undefined)
    return { msgKey: 'sampleText', msgParam: JSON.stringify({ content: message.text }) };
  const title = card.title ?? (message.text.split('\n')[0] as string); // split returns at least one part
  const parts = [card.title === undefined ? '' : `### ${card.title}`, message.text];
  if (card.body !== undefined && !message.text.includes(card.body)) parts.push(card.body);
  return {
    msgKey: 'sampleMarkdown',
    msgParam: JSON.stringify({ title, text: parts.filter((part) => part !== '').join('\n\n') }),
  };
}

/**
 * The `cardParamMap` of an interactive card for a card template: `title`, `text`, `body` and
 * `buttons`, the JSON text of `[{ label, style, value }]` where each `value` is the JSON text of
 * the button's value. The template's buttons send `{ value }` back as their callback params.
 *
 * @example
 * ```ts
 * import { toCardParams } from '@parley/dingtalk';
 *
 * const params = toCardParams({
 *   channel: 'dingtalk', chatId: 'cid1', sessionKey: 'dingtalk:cid1', createdAt: 0, text: '以下操作需要确认',
 *   card: { title: 'Confirm', buttons: [{ label: '确认', value: { confirmation: 'cfm_1.confirm' }, style: 'danger' }] },
 * });
 * console.log(JSON.parse(params['buttons'] ?? '[]')[0].value); // {"confirmation":"cfm_1.confirm"}
 * ```
 */
export function toCardParams(message: OutboundMessage): Readonly<Record<string, string>> {
  const card = message.card ?? { buttons: [] };
  return {
    title: card.title ?? '',
    text: message.text,
    body: card.body ?? '',
    buttons: JSON.stringify(
      card.buttons.map((button) => ({
        label: button.label,
        style: button.style ?? 'default',
        value: JSON.stringify(button.value),
      })),
    ),
  };
}
