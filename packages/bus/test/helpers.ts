import type { Clock, JsonValue } from '@parley/core';
import type {
  ChannelAdapter,
  DeliverInbound,
  InboundInput,
  OutboundMessage,
  PublishResult,
} from '../src/index.js';

/** What a test says in a fake chat; the channel fills in the rest. */
export type FakeInbound = Omit<InboundInput, 'channel'>;

/**
 * A fake {@link ChannelAdapter} for tests: group chats with several users, records every message
 * sent, can be told to fail sends. (To move to @parley/testing.)
 */
export interface FakeChannel extends ChannelAdapter {
  /** Every outbound message the bus handed to `send`, in order. */
  readonly sent: OutboundMessage[];
  /** Whether the bus has connected this adapter. */
  readonly connected: boolean;
  /** Delivers a text message; eventId and createdAt are filled in unless given. */
  say(chatId: string, senderId: string, text: string, extra?: Partial<FakeInbound>): Promise<PublishResult>;
  /** Delivers a card click carrying a button's value. */
  click(
    chatId: string,
    senderId: string,
    value: JsonValue,
    extra?: Partial<FakeInbound>,
  ): Promise<PublishResult>;
  /** Delivers any inbound input as is. */
  deliver(input: FakeInbound): Promise<PublishResult>;
  /** Makes the next `count` sends throw `error`. */
  failSends(count: number, error?: Error): void;
  /** The last message sent to a chat (any chat when omitted). */
  lastSent(chatId?: string): OutboundMessage | undefined;
}

export interface FakeChannelOptions {
  /** Stamps createdAt on delivered messages. */
  readonly clock?: Clock;
}

export function createFakeChannel(channel = 'fake', options: FakeChannelOptions = {}): FakeChannel {
  const sent: OutboundMessage[] = [];
  let deliverFn: DeliverInbound | undefined;
  let failures = 0;
  let failure = new Error('send failed');
  let events = 0;

  function deliver(input: FakeInbound): Promise<PublishResult> {
    if (deliverFn === undefined) throw new Error(`FakeChannel ${channel} is not attached to a bus`);
    return deliverFn(input);
  }

  function stamp(extra: Partial<FakeInbound>): Partial<FakeInbound> {
    events++;
    return {
      eventId: `${channel}-evt-${events}`,
      ...(options.clock === undefined ? {} : { createdAt: options.clock.now() }),
      ...extra,
    };
  }

  return {
    channel,
    sent,
    get connected() {
      return deliverFn !== undefined;
    },
    async send(message) {
      if (failures > 0) {
        failures--;
        throw failure;
      }
      sent.push(message);
    },
    connect(deliverInbound) {
      deliverFn = deliverInbound;
      return () => {
        deliverFn = undefined;
      };
    },
    say: (chatId, senderId, text, extra = {}) => deliver({ chatId, senderId, text, ...stamp(extra) }),
    click: (chatId, senderId, value, extra = {}) =>
      deliver({ chatId, senderId, kind: 'card_action', action: value, ...stamp(extra) }),
    deliver,
    failSends(count, error = new Error('send failed')) {
      failures = count;
      failure = error;
    },
    lastSent: (chatId) => sent.filter((message) => chatId === undefined || message.chatId === chatId).at(-1),
  };
}
