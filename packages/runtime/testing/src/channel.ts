import type { CardButton, DeliverInbound, OutboundMessage, PlatformOrder } from '@parley/bus';
import type {
  ButtonLabel,
  FakeChannel,
  FakeChannelOptions,
  FakeChat,
  FakeInbound,
  OutboxFilter,
  SendRecord,
} from './channel-types.js';
import { systemClock } from '@parley/core';
import { TestingError } from './errors.js';
import { createDeliveryQueue } from './channel-delivery.js';
import { matchesFilter, readableText, renderMessage } from './internal/outbox.js';
import { createFakePlatformOrder, platformOrderOf } from './platform-order.js';

/**
 * Creates a {@link FakeChannel}: attach it to a bus with `bus.attach(channel)`, make users talk
 * with `say` / `click` / `clickButton`, and assert on what the bot sent with `sent`, `outbox` or
 * {@link expectOutbox}.
 *
 * Use it wherever a real bot has a platform adapter (Feishu, DingTalk, Telegram, Discord…). Every
 * inbound event gets a fresh `eventId` (so a duplicate is recognisable) and, with a clock, a
 * `createdAt`.
 *
 * @throws TestingError `not_connected` (as a rejection) when a user talks before a bus attached it.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createFakeChannel } from '@parley/testing';
 *
 * const bus = createMessageBus();
 * const channel = createFakeChannel({ channel: 'feishu' });
 * await bus.attach(channel);
 * await channel.say('g1', 'alice', 'hello', { threadId: 't1' });
 * const message = await bus.receiveInbound();
 * console.log(message.sessionKey, message.senderId); // feishu:g1:t1 alice
 * ```
 */
export function createFakeChannel(options: FakeChannelOptions = {}): FakeChannel {
  const channel = options.channel ?? 'fake';
  const clock = options.clock;
  const botId = options.botId ?? 'bot';
  const name = `FakeChannel "${channel}"`;
  let sent: OutboundMessage[] = [];
  let sends: SendRecord[] = [];
  let deliverFn: DeliverInbound | undefined;
  let events = 0;
  // Given, or shared with every fake channel on the same clock (one world: restarts and replicas of
  // one bot on one platform), or this channel's own.
  const places =
    typeof options.order === 'object'
      ? options.order
      : clock === undefined
        ? createFakePlatformOrder()
        : platformOrderOf(clock);
  let sendFailures = 0;
  let sendError: unknown;
  const queue = createDeliveryQueue(name, channel, clock, () => deliverFn);
  const { dispatch, deliverNow } = queue;
  const sendListeners = new Set<(record: SendRecord) => void>();
  if (options.onSend !== undefined) sendListeners.add(options.onSend);
  /** Tells every send listener, in order; the record is already in `sends`. */
  const announce = (record: SendRecord): void => {
    for (const listener of [...sendListeners]) listener(record);
  };
  const waiters: {
    test: (message: OutboundMessage) => boolean;
    resolve: (message: OutboundMessage) => void;
  }[] = [];

  function stamp(input: FakeInbound): FakeInbound {
    events++;
    return {
      eventId: `${channel}-evt-${events}`,
      ...(clock === undefined ? {} : { createdAt: clock.now() }),
      ...input,
    };
  }

  /** The next place in the chat's order, as `{ order }`; nothing when order is off. */
  function nextPlace(chatId: string): { order?: PlatformOrder } {
    if (options.order === false) return {};
    const scope = `${channel}:${chatId}`;
    return { order: { scope, position: [places.next(scope)] } };
  }

  function outbox(filter: OutboxFilter = {}): readonly OutboundMessage[] {
    return sent.filter((message) => matchesFilter(message, filter));
  }

  function findButton(
    chatId: string,
    label: ButtonLabel,
    threadId: string | undefined,
  ): { button: CardButton; message: OutboundMessage } | undefined {
    const messages = outbox({ chatId, threadId });
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as OutboundMessage;
      const button = message.card?.buttons.find((b) =>
        typeof label === 'string' ? b.label === label : label.test(b.label),
      );
      if (button !== undefined) return { button, message };
    }
    return undefined;
  }

  const fake: FakeChannel = {
    channel,
    get sent() {
      return sent;
    },
    get sends() {
      return sends;
    },
    get delivered() {
      return queue.delivered;
    },
    get connected() {
      return deliverFn !== undefined;
    },
    get inFlight() {
      return queue.inFlight;
    },
    async send(message) {
      if (sendFailures > 0) {
        sendFailures--;
        const failed: SendRecord = { ok: false, message, error: sendError };
        sends.push(failed);
        announce(failed);
        throw sendError;
      }
      const record: SendRecord = { ok: true, message };
      const sentAt = (clock ?? systemClock).now(); // the platform's stamp of the message it now holds
      const place = nextPlace(message.chatId);
      sends.push(record);
      sent.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.test(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
      announce(record);
      if (options.echo === true && deliverFn !== undefined) {
        const { chatId, threadId, text } = message;
        await deliverNow(
          stamp({ chatId, threadId, senderId: botId, text, fromSelf: true, senderIsBot: true, ...place }),
          1,
          'echo',
        );
      }
      return { sentAt, ...place, messageId: `msg_${sent.length}` }; // the platform's id: its place in the outbox
    },
    onSend(listener) {
      const own = (record: SendRecord): void => listener(record); // one entry per subscription
      sendListeners.add(own);
      return () => {
        sendListeners.delete(own);
      };
    },
    connect(deliverInbound) {
      deliverFn = deliverInbound;
      return () => {
        if (deliverFn === deliverInbound) deliverFn = undefined;
      };
    },
    say: (chatId, senderId, text, extra = {}) =>
      dispatch(stamp({ chatId, senderId, text, ...nextPlace(chatId), ...extra })),
    click: (chatId, senderId, value, extra = {}) =>
      dispatch(stamp({ chatId, senderId, kind: 'card_action', action: value, ...extra })),
    async clickButton(chatId, senderId, label, extra = {}) {
      const found = findButton(chatId, label, extra.threadId);
      if (found === undefined) {
        const cards = outbox({ chatId, threadId: extra.threadId }).filter((m) => m.card !== undefined);
        const seen =
          cards.length === 0
            ? `no card was sent there (outbox of that chat: ${outbox({ chatId }).length} messages)`
            : `cards there have the buttons: ${cards.map((m) => renderMessage(m)).join('; ')}`;
        throw new TestingError(
          'no_button',
          `${name}: no button labelled ${String(typeof label === 'string' ? JSON.stringify(label) : label)} in a card sent to chat ${chatId}${extra.threadId === undefined ? '' : ` thread ${extra.threadId}`}; ${seen}`,
          { details: { chatId, label: String(label) } },
        );
      }
      const { button, message } = found;
      return dispatch(
        stamp({
          chatId,
          ...(message.threadId === undefined ? {} : { threadId: message.threadId }),
          senderId,
          kind: 'card_action',
          action: button.value,
          ...extra,
        }),
      );
    },
    deliver: (input) => dispatch(input),
    chat(chatId, threadId) {
      const extra = threadId === undefined ? {} : { threadId };
      const chat: FakeChat = {
        chatId,
        threadId,
        say: (senderId, text, more = {}) => fake.say(chatId, senderId, text, { ...extra, ...more }),
        click: (senderId, value, more = {}) => fake.click(chatId, senderId, value, { ...extra, ...more }),
        clickButton: (senderId, label, more = {}) =>
          fake.clickButton(chatId, senderId, label, { ...extra, ...more }),
        get sent() {
          return outbox({ chatId, threadId });
        },
        lastSent: () => fake.lastSent(chatId, threadId),
      };
      return chat;
    },
    outbox,
    lastSent: (chatId, threadId) => outbox({ chatId, threadId }).at(-1),
    buttons(chatId, threadId) {
      const cards = outbox({ chatId, threadId }).filter((m) => m.card !== undefined);
      return cards.at(-1)?.card?.buttons ?? [];
    },
    waitForSent(match, filter = {}) {
      const test = (message: OutboundMessage): boolean =>
        matchesFilter(message, filter) &&
        (match === undefined ||
          (typeof match === 'function'
            ? match(message)
            : typeof match === 'string'
              ? readableText(message).includes(match)
              : match.test(readableText(message))));
      const existing = match === undefined ? undefined : [...outbox(filter)].reverse().find(test);
      if (existing !== undefined) return Promise.resolve(existing);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    clear() {
      sent = [];
      sends = [];
      queue.clear();
    },
    failSends(count = 1, error) {
      sendFailures = count;
      sendError =
        error ??
        new TestingError('injected_fault', `${name}: send failed (injected by failSends)`, {
          details: { channel },
        });
    },
    duplicateNext: (count = 1) => queue.duplicateNext(count),
    delayNext: (delayMs, count = 1) => queue.delayNext(delayMs, count),
    hold: () => queue.hold(),
    release: (order = 'said') => queue.release(order),
  };
  return fake;
}
