import type { CardButton, DeliverInbound, OutboundMessage, PublishResult } from '@parley/bus';
import type {
  ButtonLabel,
  DeliveryRecord,
  FakeChannel,
  FakeChannelOptions,
  FakeChat,
  FakeInbound,
  OutboxFilter,
  SendRecord,
} from './channel-types.js';
import { systemClock } from '@parley/core';
import { TestingError } from './errors.js';
import { checkDelay } from './internal/answer.js';
import { defer } from './internal/format.js';
import { matchesFilter, readableText, renderMessage } from './internal/outbox.js';

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
  let delivered: DeliveryRecord[] = [];
  let deliverFn: DeliverInbound | undefined;
  let events = 0;
  let sendFailures = 0;
  let sendError: unknown;
  let duplicates = 0;
  const delays: number[] = [];
  let holding = false;
  let held: { input: FakeInbound; copies: number; done: ReturnType<typeof defer<PublishResult>> }[] = [];
  let late = 0;
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

  async function deliverNow(
    input: FakeInbound,
    copies: number,
    fault: DeliveryRecord['fault'],
  ): Promise<PublishResult> {
    const first = await deliverOnce(input, false, fault);
    for (let i = 1; i < copies; i++) await deliverOnce(input, true, fault);
    return first;
  }

  async function deliverOnce(
    input: FakeInbound,
    duplicate: boolean,
    fault: DeliveryRecord['fault'],
  ): Promise<PublishResult> {
    if (deliverFn === undefined) {
      throw new TestingError(
        'not_connected',
        `${name} is not attached to a bus: call bus.attach(channel) before users talk`,
        { details: { channel } },
      );
    }
    const result = await deliverFn(input);
    delivered.push({ input, result, duplicate, ...(fault === undefined ? {} : { fault }) });
    return result;
  }

  function dispatch(input: FakeInbound): Promise<PublishResult> {
    const copies = duplicates > 0 ? 2 : 1;
    if (duplicates > 0) duplicates--;
    if (holding) {
      const done = defer<PublishResult>();
      held.push({ input, copies, done });
      return done.promise;
    }
    const delayMs = delays.shift();
    if (delayMs === undefined) return deliverNow(input, copies, undefined);
    const done = defer<PublishResult>();
    late++;
    clock?.setTimeout(() => {
      late--;
      deliverNow(input, copies, 'late').then(done.resolve, done.reject);
    }, delayMs);
    return done.promise;
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
      return delivered;
    },
    get connected() {
      return deliverFn !== undefined;
    },
    get inFlight() {
      return held.length + late;
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
          stamp({ chatId, threadId, senderId: botId, text, fromSelf: true, senderIsBot: true }),
          1,
          'echo',
        );
      }
      return { sentAt };
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
    say: (chatId, senderId, text, extra = {}) => dispatch(stamp({ chatId, senderId, text, ...extra })),
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
      delivered = [];
    },
    failSends(count = 1, error) {
      sendFailures = count;
      sendError =
        error ??
        new TestingError('injected_fault', `${name}: send failed (injected by failSends)`, {
          details: { channel },
        });
    },
    duplicateNext(count = 1) {
      duplicates = count;
    },
    delayNext(delayMs, count = 1) {
      checkDelay(`${name}.delayNext`, delayMs, clock);
      for (let i = 0; i < count; i++) delays.push(delayMs);
    },
    hold() {
      holding = true;
    },
    async release(order = 'said') {
      const list = held;
      const indexes =
        order === 'said'
          ? list.map((_, i) => i)
          : order === 'reverse'
            ? list.map((_, i) => list.length - 1 - i)
            : [...order];
      const valid =
        indexes.length === list.length && [...indexes].sort((a, b) => a - b).every((value, i) => value === i);
      if (!valid) {
        throw new TestingError(
          'invalid_argument',
          `${name}.release: order ${JSON.stringify(order)} is not a permutation of the ${list.length} held events`,
          { details: { held: list.length } },
        );
      }
      held = [];
      holding = false;
      const results: PublishResult[] = [];
      for (const [position, index] of indexes.entries()) {
        const entry = list[index] as (typeof list)[number];
        try {
          const result = await deliverNow(
            entry.input,
            entry.copies,
            index === position ? undefined : 'reordered',
          );
          entry.done.resolve(result);
          results.push(result);
        } catch (error) {
          for (const rest of indexes.slice(position))
            (list[rest] as (typeof list)[number]).done.reject(error);
          throw error;
        }
      }
      return results;
    },
  };
  return fake;
}
