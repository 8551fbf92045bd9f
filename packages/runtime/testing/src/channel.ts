import type { DeliverInbound } from '@parley/bus';
import { systemClock } from '@parley/core';
import { createDeliveryQueue } from './channel-delivery.js';
import type { FakeChannel, FakeChannelOptions, FakeChat } from './channel-types.js';
import { TestingError } from './errors.js';
import { createSentLog } from './internal/sent-log.js';
import { createStamper } from './internal/stamper.js';

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
  let deliverFn: DeliverInbound | undefined;
  let sendFailures = 0;
  let sendError: unknown;
  const queue = createDeliveryQueue(name, channel, clock, () => deliverFn);
  const { dispatch, deliverNow } = queue;
  const log = createSentLog(name, options.onSend);
  const { outbox } = log;
  const { stamp, nextPlace } = createStamper(options, channel);

  const fake: FakeChannel = {
    channel,
    get sent() {
      return log.sent;
    },
    get sends() {
      return log.sends;
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
        log.failed(message, sendError);
        throw sendError;
      }
      const sentAt = (clock ?? systemClock).now(); // the platform's stamp of the message it now holds
      const place = nextPlace(message.chatId);
      log.accepted(message);
      if (options.echo === true && deliverFn !== undefined) {
        const { chatId, threadId, text } = message;
        await deliverNow(
          stamp({ chatId, threadId, senderId: botId, text, fromSelf: true, senderIsBot: true, ...place }),
          1,
          'echo',
        );
      }
      return { sentAt, ...place, messageId: `msg_${log.sent.length}` }; // the platform's id: its place in the outbox
    },
    onSend: log.onSend,
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
      const { button, message } = log.findButton(chatId, label, extra.threadId);
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
    chat: (chatId, threadId) => chatOf(fake, outbox, chatId, threadId),
    outbox,
    lastSent: log.lastSent,
    buttons: log.buttons,
    waitForSent: log.waitForSent,
    clear() {
      log.clear();
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

/** The channel seen from one chat (or thread): what its users do, and what was sent there. */
function chatOf(
  fake: FakeChannel,
  outbox: FakeChannel['outbox'],
  chatId: string,
  threadId: string | undefined,
): FakeChat {
  const extra = threadId === undefined ? {} : { threadId };
  return {
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
}
