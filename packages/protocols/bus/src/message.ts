import type { JsonValue } from '@parley/core';
import type { PlatformOrder } from './order.js';

/**
 * The kinds of inbound event a channel delivers: a new message, an edit or a recall of an
 * earlier one, or a click on an interactive card.
 *
 * @example
 * ```ts
 * import { INBOUND_KINDS } from '@parley/bus';
 *
 * console.log(INBOUND_KINDS); // [ 'message', 'edit', 'recall', 'card_action' ]
 * ```
 */
export const INBOUND_KINDS = ['message', 'edit', 'recall', 'card_action'] as const;

/**
 * One of {@link INBOUND_KINDS}.
 *
 * @example
 * ```ts
 * import type { InboundKind } from '@parley/bus';
 *
 * const kind: InboundKind = 'card_action';
 * ```
 */
export type InboundKind = (typeof INBOUND_KINDS)[number];

/**
 * What a channel adapter hands to {@link MessageBus.publishInbound}. Only the address, the
 * sender and (for text) the text are required; the rest feeds hygiene rules and card handling.
 *
 * @example
 * ```ts
 * import type { InboundInput } from '@parley/bus';
 *
 * const input: InboundInput = {
 *   channel: 'feishu',
 *   chatId: 'oc_123',
 *   senderId: 'ou_alice',
 *   text: '确认',
 *   eventId: 'evt_1',
 *   createdAt: 1_700_000_000_000,
 * };
 * ```
 */
export interface InboundInput {
  readonly channel: string;
  readonly chatId: string;
  /** The thread, for channels that have threads; part of the session key. */
  readonly threadId?: string | undefined;
  /** The platform's id of the user (or bot) who sent it. */
  readonly senderId: string;
  /** The text; `''` when omitted (a card click, a recall). */
  readonly text?: string | undefined;
  /** `'message'` when omitted. */
  readonly kind?: InboundKind | undefined;
  /** The platform's event id, so a redelivered event can be recognised. */
  readonly eventId?: string | undefined;
  /** When the platform says the message was created, epoch ms. */
  readonly createdAt?: number | undefined;
  /**
   * The message's place in the platform's own per-chat order (see {@link PlatformOrder}); what a
   * gate reads to tell whether it was written after a prompt whose receipt carries an order too.
   */
  readonly order?: PlatformOrder | undefined;
  /** The sender is a bot (any bot). */
  readonly senderIsBot?: boolean | undefined;
  /** The sender is this bot itself (an echo of what it sent). */
  readonly fromSelf?: boolean | undefined;
  /** For `card_action`: the value attached to the clicked button. */
  readonly action?: JsonValue | undefined;
  /** The platform's original event, for the host; the bus never reads it. */
  readonly raw?: unknown;
}

/**
 * An inbound message as the bus passes it to interceptors and consumers: the input plus its
 * `sessionKey`, its `kind`, its `text` and the bus time at which it arrived.
 *
 * @example
 * ```ts
 * import { createMessageBus, type InboundMessage } from '@parley/bus';
 *
 * const bus = createMessageBus();
 * await bus.publishInbound({ channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hi' });
 * const message: InboundMessage = await bus.receiveInbound();
 * console.log(message.sessionKey, message.kind); // feishu:oc_1 message
 * ```
 */
export interface InboundMessage extends InboundInput {
  readonly sessionKey: string;
  readonly kind: InboundKind;
  readonly text: string;
  /** Bus clock time at which `publishInbound` received it, epoch ms. */
  readonly receivedAt: number;
}

/**
 * A button of an {@link OutboundCard}; `value` comes back as `action` on a `card_action`.
 *
 * @example
 * ```ts
 * import type { CardButton } from '@parley/bus';
 *
 * const button: CardButton = { label: '确认', value: { choice: 'confirm' }, style: 'danger' };
 * ```
 */
export interface CardButton {
  readonly label: string;
  readonly value: JsonValue;
  readonly style?: 'primary' | 'danger' | 'default' | undefined;
}

/**
 * An interactive card, described independently of any platform; the adapter renders it.
 *
 * @example
 * ```ts
 * import type { OutboundCard } from '@parley/bus';
 *
 * const card: OutboundCard = { title: 'Confirm', body: 'DELETE FROM orders', buttons: [] };
 * ```
 */
export interface OutboundCard {
  readonly title?: string | undefined;
  readonly body?: string | undefined;
  readonly buttons: readonly CardButton[];
}

/**
 * What the host (or a gate) hands to {@link MessageBus.publishOutbound}.
 *
 * @example
 * ```ts
 * import type { OutboundInput } from '@parley/bus';
 *
 * const reply: OutboundInput = { channel: 'feishu', chatId: 'oc_123', text: 'Done.' };
 * ```
 */
export interface OutboundInput {
  readonly channel: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  readonly text: string;
  /** A card to render instead of (or with) the text, where the channel supports cards. */
  readonly card?: OutboundCard | undefined;
  /** The event id of the message this one answers. */
  readonly replyTo?: string | undefined;
  /** Host data the adapter may read; never interpreted by the bus. */
  readonly metadata?: JsonValue | undefined;
}

/**
 * An outbound message as adapters and consumers receive it: the input plus its session key and
 * the bus time at which it was published.
 *
 * @example
 * ```ts
 * import type { OutboundMessage } from '@parley/bus';
 *
 * function render(message: OutboundMessage): string {
 *   return `[${message.sessionKey}] ${message.text}`;
 * }
 * ```
 */
export interface OutboundMessage extends OutboundInput {
  readonly sessionKey: string;
  readonly createdAt: number;
}
