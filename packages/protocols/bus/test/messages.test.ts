import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  type ChannelAdapter,
  createMessageBus,
  type DeliverInbound,
  type OutboundMessage,
} from '../src/index.js';

describe('what a published message carries', () => {
  it('copies every field of an inbound input that is set, and adds the bus fields', async () => {
    const clock = createManualClock({ now: 5 });
    const bus = createMessageBus({ clock });
    const raw = { platform: 'event' };
    await bus.publishInbound({
      channel: 'feishu',
      chatId: 'oc_1',
      threadId: 't',
      senderId: 'ou_a',
      text: 'ok',
      kind: 'card_action',
      eventId: 'ev_1',
      createdAt: 3,
      senderIsBot: false,
      fromSelf: false,
      action: { confirmation: 'x' },
      raw,
    });
    const message = await bus.receiveInbound();
    expect(message).toStrictEqual({
      channel: 'feishu',
      chatId: 'oc_1',
      threadId: 't',
      senderId: 'ou_a',
      text: 'ok',
      kind: 'card_action',
      eventId: 'ev_1',
      createdAt: 3,
      senderIsBot: false,
      fromSelf: false,
      action: { confirmation: 'x' },
      raw,
      sessionKey: 'feishu:oc_1:t',
      receivedAt: 5,
    });
    expect(message.raw).toBe(raw);
  });

  it('adds no key for an optional field that is not set', async () => {
    const bus = createMessageBus({ clock: createManualClock() });
    await bus.publishInbound({ channel: 'tg', chatId: '1', senderId: '2', threadId: undefined });
    const message = await bus.receiveInbound();
    expect(Object.keys(message).sort()).toEqual(
      ['channel', 'chatId', 'kind', 'receivedAt', 'senderId', 'sessionKey', 'text'].sort(),
    );
  });

  it('publishes what an adapter delivers on the adapter’s channel, whatever the input claims', async () => {
    const bus = createMessageBus();
    let deliver: DeliverInbound | undefined;
    const adapter: ChannelAdapter = {
      channel: 'dingtalk',
      send: async () => {},
      connect: (fn) => {
        deliver = fn;
      },
    };
    await bus.attach(adapter);
    const input = { channel: 'spoofed', chatId: 'c', senderId: 'u', text: 'hi' };
    expect((await deliver?.(input))?.message).toMatchObject({
      channel: 'dingtalk',
      sessionKey: 'dingtalk:c',
    });
  });

  it('copies every field of an outbound input that is set', async () => {
    const clock = createManualClock({ now: 9 });
    const bus = createMessageBus({ clock });
    const card = { title: 'T', buttons: [{ label: 'OK', value: 1 }] };
    await bus.publishOutbound({
      channel: 'tg',
      chatId: '1',
      threadId: '2',
      text: 'hi',
      card,
      replyTo: 'ev',
      metadata: { n: 1 },
    });
    await bus.publishOutbound({ channel: 'tg', chatId: '1', text: 'plain' });
    const full: OutboundMessage = await bus.receiveOutbound();
    expect(full).toStrictEqual({
      channel: 'tg',
      chatId: '1',
      threadId: '2',
      text: 'hi',
      card,
      replyTo: 'ev',
      metadata: { n: 1 },
      sessionKey: 'tg:1:2',
      createdAt: 9,
    });
    const plain = await bus.receiveOutbound();
    expect(Object.keys(plain).sort()).toEqual(['channel', 'chatId', 'createdAt', 'sessionKey', 'text']);
  });
});
