import type { DeliverInbound, OutboundMessage, SendReceipt } from '@parley/bus';
import { createEmitter, type Unsubscribe } from '@parley/core';
import type { Message, SentMessage, Thread } from 'chat';
import { ChatSdkAdapterError } from './errors.js';
import { mapAction, mapMessage, platformOf } from './inbound.js';
import { orderOf, placeOfId } from './order.js';
import { toAdapterError } from './platform-errors.js';
import type { ChatSdkAdapter, ChatSdkAdapterEvents, ChatSdkAdapterOptions } from './types.js';

/**
 * The Chat SDK action id of every button the adapter posts (its value is the bus button's value as
 * JSON); clicks on buttons with other ids are the host's, and the adapter leaves them alone.
 *
 * @example
 * ```ts
 * import { PARLEY_ACTION_ID } from '@parley/chat-sdk';
 *
 * console.log(PARLEY_ACTION_ID); // parley
 * ```
 */
export const PARLEY_ACTION_ID = 'parley';

/** Every message, in any thread the bot sees: the pattern handler's catch-all. */
const ANY_TEXT = /[\s\S]*/u;

/**
 * Creates a `ChannelAdapter` for `@parley/bus` over a Chat SDK bot (`new Chat({ adapters, state })`
 * from `chat`): it registers handlers that hand every new message (mentions, messages in
 * subscribed threads, and any other message the bot sees), every edit and every click on its own
 * buttons to the bus, and its `send` posts the bus's messages, with cards as a Chat SDK `Card` of
 * buttons.
 *
 * The adapter never starts the bot or serves its webhooks: the host does (`bot.webhooks.discord`).
 * Its handlers return at once, so they hold the Chat SDK's thread lock only briefly. Do not await a
 * confirmation inside a Chat SDK handler of the same thread with the default `concurrency: 'drop'`:
 * the person's reply would be dropped while that handler holds the lock.
 *
 * @throws ChatSdkAdapterError `invalid_argument` without a bot.
 * @example
 * ```ts
 * import { createMemoryState } from '@chat-adapter/state-memory';
 * import { createMessageBus } from '@parley/bus';
 * import { createChatSdkAdapter } from '@parley/chat-sdk';
 * import { Chat } from 'chat';
 *
 * const bot = new Chat({ userName: 'parley', adapters: {}, state: createMemoryState(), logger: 'silent' });
 * const chat = createChatSdkAdapter({ bot });
 * const bus = createMessageBus();
 * const detach = await bus.attach(chat);
 * console.log(chat.channel); // chat-sdk
 * detach();
 * ```
 */
export function createChatSdkAdapter(options: ChatSdkAdapterOptions): ChatSdkAdapter {
  const { bot } = options;
  if (typeof bot?.onNewMention !== 'function' || typeof bot.thread !== 'function') {
    throw new ChatSdkAdapterError('invalid_argument', 'createChatSdkAdapter needs a Chat SDK bot');
  }
  const channel = options.channel ?? 'chat-sdk';
  const events = createEmitter<ChatSdkAdapterEvents>();
  let deliver: DeliverInbound | undefined;

  async function onMessage(thread: Thread, message: Message, kind: 'message' | 'edit'): Promise<void> {
    const current = deliver;
    if (current === undefined)
      return void events.emit('skipped', { reason: 'not_connected', threadId: thread.id });
    await current(mapMessage(thread, message, kind, { channel, order: options.order }));
  }

  const onNew = (thread: Thread, message: Message): Promise<void> => onMessage(thread, message, 'message');
  bot.onNewMention(onNew);
  bot.onSubscribedMessage(onNew);
  bot.onNewMessage(ANY_TEXT, onNew);
  bot.onMessageUpdated((thread, message) => onMessage(thread, message, 'edit'));
  bot.onAction(PARLEY_ACTION_ID, async (event) => {
    const current = deliver;
    if (current === undefined)
      return void events.emit('skipped', { reason: 'not_connected', threadId: event.threadId });
    const input = mapAction(event);
    if (input === undefined)
      return void events.emit('skipped', { reason: 'bad_button_value', threadId: event.threadId });
    await current(input);
  });

  async function post(message: OutboundMessage): Promise<SentMessage> {
    const target =
      message.threadId === undefined ? bot.channel(message.chatId) : bot.thread(message.threadId);
    if (message.card === undefined || message.card.buttons.length === 0)
      return target.post({ raw: message.text });
    // `chat` is ESM-only: loaded when a card is first sent, so the CJS build loads without it.
    const { Actions, Button, Card, CardText } = await import('chat');
    const buttons = message.card.buttons.map((button) =>
      Button({
        id: PARLEY_ACTION_ID,
        label: button.label,
        style: button.style ?? 'default',
        value: JSON.stringify(button.value),
      }),
    );
    const card = Card({
      ...(message.card.title === undefined ? {} : { title: message.card.title }),
      children: [CardText(message.text), Actions(buttons)],
    });
    return target.post({ card, fallbackText: message.text });
  }

  return {
    channel,
    async send(message): Promise<SendReceipt> {
      const platform = platformOf(message.chatId);
      let sent: SentMessage;
      try {
        sent = await post(message);
      } catch (error) {
        const failure = toAdapterError(error, platform);
        events.emit('error', { error: failure });
        throw failure;
      }
      // The time comes from the platform's id only: a Chat SDK SentMessage's `dateSent` is the
      // Chat SDK's own `new Date()` at posting, not the platform's stamp, so the bus stamps instead.
      const at = placeOfId(platform, sent.id)?.at;
      return {
        ...(at === undefined ? {} : { sentAt: at }),
        order: orderOf(channel, message.chatId, platform, sent.id),
        ...(typeof sent.id === 'string' && sent.id !== '' ? { messageId: sent.id } : {}),
      };
    },
    connect(d): Unsubscribe {
      deliver = d;
      return () => {
        if (deliver === d) deliver = undefined;
      };
    },
    on: (event, listener) => events.on(event, listener),
  };
}
