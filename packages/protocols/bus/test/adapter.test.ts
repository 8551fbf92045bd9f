import { describe, expect, it } from 'vitest';
import { type ChannelAdapter, createMessageBus, type OutboundInput, type SendReceipt } from '../src/index.js';
import { createFakeChannel } from '@parley/testing';

const reply: OutboundInput = { channel: 'fake', chatId: 'g1', text: 'hi' };

describe('attach', () => {
  it('delivers inbound events from an adapter with its channel filled in', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    expect(channel.connected).toBe(true);
    await channel.say('g1', 'alice', 'hello');
    expect(await bus.receiveInbound()).toMatchObject({
      channel: 'fake',
      sessionKey: 'fake:g1',
      senderId: 'alice',
    });
  });

  it('does not let an adapter deliver for another channel', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    await channel.deliver({ chatId: 'g1', senderId: 'a', text: 'x', channel: 'other' } as never);
    expect((await bus.receiveInbound()).channel).toBe('fake');
  });

  it('sends outbound messages of its channel through the adapter', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    expect(await bus.publishOutbound(reply)).toMatchObject({
      status: 'sent',
      message: { sessionKey: 'fake:g1' },
    });
    expect(channel.sent.map((m) => m.text)).toEqual(['hi']);
    expect(bus.size.outbound).toBe(0);
  });

  it('reports a failing send as send_failed without throwing', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    const drops: string[] = [];
    bus.on('dropped', ({ code, direction }) => drops.push(`${direction}:${code}`));
    await bus.attach(channel);
    channel.failSends(1);
    expect(await bus.publishOutbound(reply)).toMatchObject({ status: 'rejected', code: 'send_failed' });
    expect(drops).toEqual(['outbound:send_failed']);
    expect(channel.sent).toHaveLength(0);
  });

  it('queues outbound messages of a channel without an adapter', async () => {
    const bus = createMessageBus({ capacity: 1 });
    expect((await bus.publishOutbound(reply)).status).toBe('queued');
    expect(await bus.publishOutbound(reply)).toMatchObject({ status: 'rejected', code: 'queue_full' });
    const texts: string[] = [];
    for await (const message of bus.outbound()) {
      texts.push(message.text);
      break;
    }
    expect(texts).toEqual(['hi']);
    const next = bus.receiveOutbound();
    await bus.publishOutbound({ ...reply, text: 'second' });
    expect((await next).text).toBe('second');
  });

  it('rejects invalid outbound messages as invalid_message', async () => {
    const bus = createMessageBus();
    for (const bad of [
      null,
      { channel: 'x', chatId: 'y' },
      { channel: 'x', chatId: 'y', text: 't', card: {} },
      { chatId: 'y', text: 't' },
    ]) {
      expect(await bus.publishOutbound(bad as unknown as OutboundInput)).toMatchObject({
        code: 'invalid_message',
      });
    }
  });

  it('refuses a second adapter for the same channel with channel_taken', async () => {
    const bus = createMessageBus();
    await bus.attach(createFakeChannel());
    await expect(bus.attach(createFakeChannel())).rejects.toMatchObject({ code: 'channel_taken' });
  });

  it('detaches an adapter so it neither sends nor delivers', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    const detach = await bus.attach(channel);
    detach();
    detach();
    expect(channel.connected).toBe(false);
    expect((await bus.publishOutbound(reply)).status).toBe('queued');
    await expect(channel.say('g1', 'a', 'x')).rejects.toThrow(/not attached/);
    await bus.attach(channel); // the channel is free again
  });

  it('accepts an adapter without connect (send only)', async () => {
    const bus = createMessageBus();
    const sent: string[] = [];
    const adapter: ChannelAdapter = { channel: 'out', send: (message) => void sent.push(message.text) };
    await bus.attach(adapter);
    await bus.publishOutbound({ channel: 'out', chatId: 'c', text: 'x' });
    expect(sent).toEqual(['x']);
  });

  it('frees the channel when connect fails', async () => {
    const bus = createMessageBus();
    const failing: ChannelAdapter = {
      channel: 'x',
      send: () => {},
      connect: async () => {
        throw new Error('login failed');
      },
    };
    await expect(bus.attach(failing)).rejects.toThrow('login failed');
    await bus.attach({ channel: 'x', send: () => {} });
  });

  it('detaches every adapter on close and refuses attach afterwards', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    await bus.close();
    expect(channel.connected).toBe(false);
    await expect(bus.attach(createFakeChannel({ channel: 'other' }))).rejects.toMatchObject({
      code: 'closed',
    });
  });
});

describe('send receipts', () => {
  it('passes on the platform stamp an adapter reports for a sent message', async () => {
    const receipts: unknown[] = [
      { sentAt: 1_700_000_000_000 },
      { sentAt: Number.NaN },
      { sentAt: '5' },
      null,
      7,
    ];
    const bus = createMessageBus();
    await bus.attach({ channel: 'tg', send: () => receipts.shift() as SendReceipt });
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(await bus.publishOutbound({ channel: 'tg', chatId: 'c', text: 'x' }));
    expect(results[0]).toMatchObject({ status: 'sent', sentAt: 1_700_000_000_000 });
    for (const result of results.slice(1)) {
      expect(result.status).toBe('sent');
      expect(result).not.toHaveProperty('sentAt');
    }
  });

  it('passes on the platform message id an adapter reports, and ignores one that is not 1–256 characters', async () => {
    const receipts: unknown[] = [
      { messageId: '4711' },
      { messageId: '' },
      { messageId: 'x'.repeat(257) },
      { messageId: 7 },
    ];
    const bus = createMessageBus();
    await bus.attach({ channel: 'tg', send: () => receipts.shift() as SendReceipt });
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(await bus.publishOutbound({ channel: 'tg', chatId: 'c', text: 'x' }));
    expect(results[0]).toMatchObject({ status: 'sent', messageId: '4711' });
    for (const result of results.slice(1)) expect(result).not.toHaveProperty('messageId');
  });
});
