import type {
  CardButton,
  ChannelAdapter,
  InboundInput,
  OutboundMessage,
  PublishResult,
  SendReceipt,
} from '@parley/bus';
import type { Clock, JsonValue } from '@parley/core';
import type { FakePlatformOrder } from './platform-order.js';

/**
 * What a test says in a fake chat: an inbound event without its channel (the fake fills it in).
 *
 * @example
 * ```ts
 * import type { FakeInbound } from '@parley/testing';
 *
 * const edit: FakeInbound = { chatId: 'g1', senderId: 'alice', text: '确认', kind: 'edit' };
 * ```
 */
export type FakeInbound = Omit<InboundInput, 'channel'>;

/**
 * Options for {@link createFakeChannel}.
 *
 * @example
 * ```ts
 * import { createFakeClock, type FakeChannelOptions } from '@parley/testing';
 *
 * const options: FakeChannelOptions = { channel: 'feishu', clock: createFakeClock(), echo: true };
 * ```
 */
export interface FakeChannelOptions {
  /** The channel name (first part of session keys); `fake` by default. */
  readonly channel?: string;
  /** Stamps `createdAt` on inbound events and drives late deliveries; none by default. */
  readonly clock?: Clock;
  /** The bot's own user id on the platform, used for echoes; `bot` by default. */
  readonly botId?: string;
  /** Like many platforms, deliver every message the bot sends back to it (`fromSelf: true`). */
  readonly echo?: boolean;
  /**
   * Give text messages (`say`, echoes) and send receipts the chat's own order, as Telegram's
   * `message_id` or Slack's `ts` do: `{ scope: '<channel>:<chatId>', position: [n] }`, `n` counting
   * up per chat in the order messages are written (`say` is writing, even when the delivery is held
   * or delayed) and sent. True by default; `false` simulates a platform that gives no order. Fake
   * channels on the same `clock` number their chats together, as one platform does for a bot, its
   * restarts and its replicas; a {@link FakePlatformOrder} given here says explicitly which channels
   * share a numbering (without a clock, each channel counts on its own).
   */
  readonly order?: boolean | FakePlatformOrder;
  /**
   * Called synchronously on every `send` as it happens, failed ones included, after the record is
   * in `sends` (and, when it succeeded, in the outbox). A listener that throws fails that `send`.
   */
  readonly onSend?: (record: SendRecord) => void;
}

/**
 * One inbound event the fake handed to the bus, with the bus's answer.
 *
 * @example
 * ```ts
 * import type { DeliveryRecord } from '@parley/testing';
 *
 * const isDuplicate = (record: DeliveryRecord): boolean => record.duplicate;
 * ```
 */
export interface DeliveryRecord {
  readonly input: FakeInbound;
  readonly result: PublishResult;
  /** A second delivery of the same event (the `duplicateNext` fault). */
  readonly duplicate: boolean;
  /** Delivered late (`delayNext`), out of order (`hold` / `release`), or as an echo. */
  readonly fault?: 'late' | 'reordered' | 'echo' | undefined;
}

/**
 * One call of the fake's `send`, failed ones included.
 *
 * @example
 * ```ts
 * import type { SendRecord } from '@parley/testing';
 *
 * const failed = (records: readonly SendRecord[]) => records.filter((r) => !r.ok).length;
 * ```
 */
export type SendRecord =
  | { readonly ok: true; readonly message: OutboundMessage }
  | { readonly ok: false; readonly message: OutboundMessage; readonly error: unknown };

/**
 * Which part of the outbox to look at: one chat, optionally one thread of it.
 *
 * @example
 * ```ts
 * import type { OutboxFilter } from '@parley/testing';
 *
 * const thread: OutboxFilter = { chatId: 'g1', threadId: 't1' };
 * ```
 */
export interface OutboxFilter {
  readonly chatId?: string | undefined;
  /** Only messages in this thread; any thread (and none) when omitted. */
  readonly threadId?: string | undefined;
}

/**
 * How {@link FakeChannel.release} orders held events: as they were said, reversed, or by the
 * given indexes (0 = the first held).
 *
 * @example
 * ```ts
 * import type { ReleaseOrder } from '@parley/testing';
 *
 * const swapped: ReleaseOrder = [1, 0];
 * ```
 */
export type ReleaseOrder = 'said' | 'reverse' | readonly number[];

/**
 * A button label to click: the exact label, or a pattern.
 *
 * @example
 * ```ts
 * import type { ButtonLabel } from '@parley/testing';
 *
 * const confirm: ButtonLabel = /^(确认|Confirm)$/;
 * ```
 */
export type ButtonLabel = string | RegExp;

/**
 * One chat (or one thread of it) of a {@link FakeChannel}, so a test reads like a conversation.
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createFakeChannel } from '@parley/testing';
 *
 * const channel = createFakeChannel();
 * await createMessageBus().attach(channel);
 * const g1 = channel.chat('g1');
 * await g1.say('alice', 'hello');
 * console.log(g1.sent.length); // 0
 * ```
 */
export interface FakeChat {
  readonly chatId: string;
  readonly threadId: string | undefined;
  /** {@link FakeChannel.say} in this chat (thread). */
  say(senderId: string, text: string, extra?: Partial<FakeInbound>): Promise<PublishResult>;
  /** {@link FakeChannel.click} in this chat (thread). */
  click(senderId: string, value: JsonValue, extra?: Partial<FakeInbound>): Promise<PublishResult>;
  /** {@link FakeChannel.clickButton} on the cards of this chat (thread). */
  clickButton(senderId: string, label: ButtonLabel, extra?: Partial<FakeInbound>): Promise<PublishResult>;
  /** What the bot sent to this chat (thread), oldest first. */
  readonly sent: readonly OutboundMessage[];
  /** The last message sent to this chat (thread). */
  lastSent(): OutboundMessage | undefined;
}

/**
 * A chat platform stand-in that plugs into a `MessageBus` as its `ChannelAdapter`: several chats,
 * group chats with several users, threads, cards whose buttons a test clicks, an outbox, and
 * platform faults on cue (failed sends, duplicate, late and out-of-order deliveries).
 *
 * @example
 * ```ts
 * import { createMessageBus } from '@parley/bus';
 * import { createFakeChannel, type FakeChannel } from '@parley/testing';
 *
 * const bus = createMessageBus();
 * const channel: FakeChannel = createFakeChannel({ channel: 'feishu' });
 * await bus.attach(channel);
 * await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'hi' });
 * console.log(channel.lastSent('g1')?.text); // hi
 * ```
 */
export interface FakeChannel extends ChannelAdapter {
  readonly channel: string;
  /**
   * Records the message and resolves to its receipt, `sentAt` read from the channel's clock (the
   * platform's stamp), `order` its place in the chat (unless `order: false`) and `messageId`
   * (`msg_<n>`, the n-th message sent successfully); rejects with the
   * scripted error while send failures are scripted (a failed send takes no place).
   */
  send(message: OutboundMessage): Promise<SendReceipt>;
  /** The outbox: every message sent successfully, oldest first. */
  readonly sent: readonly OutboundMessage[];
  /** Every call of `send`, failed ones included. */
  readonly sends: readonly SendRecord[];
  /** Every inbound event handed to the bus, with the bus's result. */
  readonly delivered: readonly DeliveryRecord[];
  /** Whether a bus has attached (connected) this channel. */
  readonly connected: boolean;
  /** How many inbound events are held by {@link FakeChannel.hold} or waiting to arrive late. */
  readonly inFlight: number;
  /**
   * Delivers a text message; `eventId`, its `order` in the chat at the moment it is said (unless
   * `order: false`) and, with a clock, `createdAt` are filled in unless given. Resolves with the
   * bus's result once it is delivered (later for a late or held event).
   *
   * @throws TestingError `not_connected` (as a rejection) when no bus is attached.
   */
  say(chatId: string, senderId: string, text: string, extra?: Partial<FakeInbound>): Promise<PublishResult>;
  /** Delivers a card click carrying `value`, as the platform's callback would. */
  click(
    chatId: string,
    senderId: string,
    value: JsonValue,
    extra?: Partial<FakeInbound>,
  ): Promise<PublishResult>;
  /**
   * Clicks the button with this label on the latest card sent to the chat (and thread, when
   * `extra.threadId` is given) that has one.
   *
   * @throws TestingError `no_button` (as a rejection) when no card there has such a button.
   */
  clickButton(
    chatId: string,
    senderId: string,
    label: ButtonLabel,
    extra?: Partial<FakeInbound>,
  ): Promise<PublishResult>;
  /** Delivers any inbound event as is (faults still apply). */
  deliver(input: FakeInbound): Promise<PublishResult>;
  /** A handle on one chat, or one thread of it. */
  chat(chatId: string, threadId?: string): FakeChat;
  /** The outbox, or the part of it sent to one chat (thread). */
  outbox(filter?: OutboxFilter): readonly OutboundMessage[];
  /** The last message sent to a chat (thread); to any chat when omitted. */
  lastSent(chatId?: string, threadId?: string): OutboundMessage | undefined;
  /** The buttons of the latest card sent to a chat (thread); empty when none. */
  buttons(chatId?: string, threadId?: string): readonly CardButton[];
  /**
   * Resolves with the latest message already in the outbox that contains `text` (or matches the
   * pattern or predicate), or else with the next one sent; any message when `match` is omitted
   * resolves with the next one sent. Use it to wait for a prompt the code under test sends
   * asynchronously.
   */
  waitForSent(
    match?: string | RegExp | ((message: OutboundMessage) => boolean),
    filter?: OutboxFilter,
  ): Promise<OutboundMessage>;
  /**
   * Observes every `send` as it happens, like the `onSend` option; returns the function that
   * stops it. Use it to react to a prompt mid-flow (answer it, count it) without polling.
   */
  onSend(listener: (record: SendRecord) => void): () => void;
  /** Forgets the outbox and the records, keeping faults, listeners and the connection. */
  clear(): void;
  /** Makes the next `count` sends fail with `error` (a TestingError `injected_fault` by default). */
  failSends(count?: number, error?: unknown): void;
  /** Delivers the next `count` inbound events twice, with the same event id. */
  duplicateNext(count?: number): void;
  /**
   * Delivers the next `count` inbound events `delayMs` late on the clock (stamped with the time
   * they were said).
   *
   * @throws TestingError `clock_required` without a clock; `invalid_argument` for a bad delay.
   */
  delayNext(delayMs: number, count?: number): void;
  /** Holds every inbound event until {@link FakeChannel.release}. */
  hold(): void;
  /**
   * Delivers the held events in the given order and stops holding; resolves with their results
   * in delivery order.
   *
   * @throws TestingError `invalid_argument` (as a rejection) when the order is not a permutation of the held events.
   */
  release(order?: ReleaseOrder): Promise<PublishResult[]>;
}
