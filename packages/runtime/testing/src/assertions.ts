import type { OutboundMessage } from '@parley/bus';
import type { FakeChannel, OutboxFilter } from './channel-types.js';
import { TestingError } from './errors.js';
import { describe, listLines, plural } from './internal/format.js';
import { readableText, renderMessage } from './internal/outbox.js';

/**
 * What to look for in an outbox: text a person would read (in the message, or its card's title,
 * body or button labels), a pattern, a predicate, or fields the message must have.
 *
 * @example
 * ```ts
 * import type { MessageMatcher } from '@parley/testing';
 *
 * const matchers: MessageMatcher[] = ['确认', /超时|timed out/, (m) => m.card !== undefined, { chatId: 'g1' }];
 * ```
 */
export type MessageMatcher =
  | string
  | RegExp
  | ((message: OutboundMessage) => boolean)
  | Partial<Pick<OutboundMessage, 'chatId' | 'threadId' | 'text' | 'replyTo' | 'sessionKey'>>;

/**
 * Asserts that the channel sent a message matching `match` (to the chat / thread of `filter`) and
 * returns the latest such message.
 *
 * Works with any test runner: it throws an Error whose message says what was expected and lists
 * what the outbox held.
 *
 * @throws TestingError `assertion_failed`.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { assertSent, createFakeChannel } from '@parley/testing';
 *
 * const bus = createMessageBus();
 * const channel = createFakeChannel({ channel: 'feishu' });
 * await bus.attach(channel);
 * await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'Reply 确认 to proceed' });
 * const prompt = assertSent(channel, '确认', { chatId: 'g1' });
 * console.log(prompt.sessionKey); // feishu:g1
 * ```
 */
export function assertSent(
  channel: FakeChannel,
  match: MessageMatcher,
  filter: OutboxFilter = {},
): OutboundMessage {
  const outbox = channel.outbox(filter);
  const found = [...outbox].reverse().find((message) => matches(match, message));
  if (found !== undefined) return found;
  throw failure(channel, filter, `to contain a message ${describeMatcher(match)}`, outbox);
}

/**
 * Asserts that the channel sent no message matching `match` (to the chat / thread of `filter`).
 *
 * @throws TestingError `assertion_failed`, listing the messages that matched.
 * @example
 * ```ts
 * import { assertNotSent, createFakeChannel } from '@parley/testing';
 *
 * const channel = createFakeChannel();
 * assertNotSent(channel, /deleted/); // passes: nothing was sent
 * ```
 */
export function assertNotSent(channel: FakeChannel, match: MessageMatcher, filter: OutboxFilter = {}): void {
  const outbox = channel.outbox(filter);
  const found = outbox.filter((message) => matches(match, message));
  if (found.length === 0) return;
  throw failure(
    channel,
    filter,
    `to contain no message ${describeMatcher(match)}, but ${plural(found.length, 'message')} matched`,
    outbox,
  );
}

/**
 * Fluent assertions on a channel's outbox, in the style of `expect`, that work with any test runner.
 *
 * @example
 * ```ts
 * import { createFakeChannel, expectOutbox, type OutboxExpectation } from '@parley/testing';
 *
 * const outbox: OutboxExpectation = expectOutbox(createFakeChannel(), { chatId: 'g1' });
 * outbox.toBeEmpty();
 * ```
 */
export interface OutboxExpectation {
  /** Asserts a message containing `text` (or matching the pattern) was sent; returns the latest one. */
  toContainText(text: string | RegExp): OutboundMessage;
  /** Asserts a message matching `match` was sent; returns the latest one. */
  toContain(match: MessageMatcher): OutboundMessage;
  /** Asserts no message matching `match` was sent. */
  notToContain(match: MessageMatcher): void;
  /** Asserts exactly `count` messages were sent. */
  toHaveLength(count: number): void;
  /** Asserts nothing was sent. */
  toBeEmpty(): void;
  /** Asserts the latest card sent has buttons with exactly these labels, in order; returns the card's message. */
  toHaveButtons(labels: readonly string[]): OutboundMessage;
  /** Asserts the last message sent matches `match`; returns it. */
  lastToMatch(match: MessageMatcher): OutboundMessage;
}

/**
 * Starts fluent assertions on what a {@link FakeChannel} sent, optionally to one chat or thread:
 * `expectOutbox(channel, { chatId: 'g1' }).toContainText('确认')`.
 *
 * Every failure throws an Error (`assertion_failed`) that says what was expected and lists the
 * outbox, so it reads well in vitest, jest and `node:test` alike.
 *
 * @throws TestingError `assertion_failed` from each assertion.
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createFakeChannel, expectOutbox } from '@parley/testing';
 *
 * const bus = createMessageBus();
 * const channel = createFakeChannel({ channel: 'tg' });
 * await bus.attach(channel);
 * await bus.publishOutbound({
 *   channel: 'tg',
 *   chatId: '42',
 *   text: 'Delete 3 posts?',
 *   card: { buttons: [{ label: '确认', value: 'yes' }, { label: '取消', value: 'no' }] },
 * });
 * expectOutbox(channel, { chatId: '42' }).toHaveButtons(['确认', '取消']);
 * expectOutbox(channel).toHaveLength(1);
 * ```
 */
export function expectOutbox(channel: FakeChannel, filter: OutboxFilter = {}): OutboxExpectation {
  const outbox = (): readonly OutboundMessage[] => channel.outbox(filter);
  return {
    toContainText: (text) => assertSent(channel, text, filter),
    toContain: (match) => assertSent(channel, match, filter),
    notToContain: (match) => assertNotSent(channel, match, filter),
    toHaveLength(count) {
      const list = outbox();
      if (list.length !== count) throw failure(channel, filter, `to hold ${plural(count, 'message')}`, list);
    },
    toBeEmpty() {
      const list = outbox();
      if (list.length !== 0) throw failure(channel, filter, 'to be empty', list);
    },
    toHaveButtons(labels) {
      const list = outbox();
      const card = [...list].reverse().find((message) => message.card !== undefined);
      const actual = card?.card?.buttons.map((b) => b.label);
      if (
        card !== undefined &&
        actual?.length === labels.length &&
        actual.every((label, i) => label === labels[i])
      ) {
        return card;
      }
      throw failure(
        channel,
        filter,
        `to end with a card with the buttons ${describe(labels)}, but ${card === undefined ? 'no card was sent' : `the latest card has ${describe(actual)}`}`,
        list,
      );
    },
    lastToMatch(match) {
      const list = outbox();
      const last = list.at(-1);
      if (last !== undefined && matches(match, last)) return last;
      throw failure(channel, filter, `to end with a message ${describeMatcher(match)}`, list);
    },
  };
}

function matches(match: MessageMatcher, message: OutboundMessage): boolean {
  if (typeof match === 'string') return readableText(message).includes(match);
  if (match instanceof RegExp) return match.test(readableText(message));
  if (typeof match === 'function') return match(message);
  return Object.entries(match).every(([key, value]) => message[key as keyof typeof match] === value);
}

function describeMatcher(match: MessageMatcher): string {
  if (typeof match === 'string') return `containing ${JSON.stringify(match)}`;
  if (match instanceof RegExp) return `matching ${String(match)}`;
  if (typeof match === 'function') return `satisfying ${match.name || 'the predicate'}`;
  return `with ${describe(match)}`;
}

function failure(
  channel: FakeChannel,
  filter: OutboxFilter,
  expectation: string,
  outbox: readonly OutboundMessage[],
): TestingError {
  const where = [
    filter.chatId === undefined ? '' : `chat ${filter.chatId}`,
    filter.threadId === undefined ? '' : `thread ${filter.threadId}`,
  ]
    .filter((part) => part !== '')
    .join(', ');
  const subject = `the outbox of FakeChannel "${channel.channel}"${where === '' ? '' : ` (${where})`}`;
  const held =
    outbox.length === 0
      ? 'It was empty.'
      : `It held ${plural(outbox.length, 'message')}:\n${listLines(outbox.map(renderMessage))}`;
  const failedSends = channel.sends.filter((s) => !s.ok).length;
  const note =
    failedSends === 0
      ? ''
      : `\n(${plural(failedSends, 'send')} failed and ${failedSends === 1 ? 'is' : 'are'} not in the outbox.)`;
  return new TestingError('assertion_failed', `Expected ${subject} ${expectation}. ${held}${note}`, {
    details: { channel: channel.channel, ...filter, outbox: outbox.length },
  });
}
