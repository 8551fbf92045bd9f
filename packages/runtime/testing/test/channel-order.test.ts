// The fake channel's platform order: a per-chat sequence on what users say and on send receipts,
// so a test can say "written after the prompt" (or before it), and a switch to turn it off.
import { comparePlatformOrder, type OutboundResult } from '@parley/bus';
import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFakePlatformOrder, drainInbound } from '../src/index.js';
import { attached } from './helpers.js';

const orderOf = (result: OutboundResult) => (result.status === 'sent' ? result.order : undefined);

describe('createFakeChannel: platform order', () => {
  it('numbers what is said and what is sent in one sequence per chat', async () => {
    const { bus, channel } = await attached();
    await channel.say('g1', 'alice', 'one');
    const prompt = await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'two' });
    await channel.say('g1', 'alice', 'three', { threadId: 't1' });
    await channel.say('g2', 'bob', 'one of g2');
    const [one, three, other] = await drainInbound(bus);
    expect(one?.order).toEqual({ scope: 'feishu:g1', position: [1] });
    expect(orderOf(prompt)).toEqual({ scope: 'feishu:g1', position: [2] });
    expect(three?.order).toEqual({ scope: 'feishu:g1', position: [3] });
    expect(other?.order).toEqual({ scope: 'feishu:g2', position: [1] });
    expect(comparePlatformOrder(one?.order, orderOf(prompt))).toBe('before');
    expect(comparePlatformOrder(three?.order, orderOf(prompt))).toBe('after');
  });

  it('places a reply when it is said, so one held back until after the prompt still reads as before it', async () => {
    const { bus, channel } = await attached();
    channel.hold();
    const early = channel.say('g1', 'alice', '确认');
    const prompt = await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: '确认?' });
    await channel.release();
    await early;
    const [reply] = await drainInbound(bus);
    expect(comparePlatformOrder(reply?.order, orderOf(prompt))).toBe('before');
  });

  it('gives an echo the place of the message it echoes, and a failed send no place', async () => {
    const { bus, channel } = await attached({ echo: true });
    channel.failSends(1);
    expect((await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'lost' })).status).toBe(
      'rejected',
    );
    const sent = await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'hi' });
    const [echo] = await drainInbound(bus);
    expect(orderOf(sent)).toEqual({ scope: 'feishu:g1', position: [1] });
    expect(echo?.order).toEqual(orderOf(sent));
  });

  it('lets a test give its own order, and clicks carry none', async () => {
    const { bus, channel } = await attached();
    await channel.say('g1', 'alice', 'x', { order: { scope: 'feishu:g1', position: [99] } });
    await channel.click('g1', 'alice', { confirmation: 'c1' });
    const [said, click] = await drainInbound(bus);
    expect(said?.order).toEqual({ scope: 'feishu:g1', position: [99] });
    expect(click?.order).toBeUndefined();
  });

  it('gives no order at all with order: false, as a platform without one', async () => {
    const { bus, channel } = await attached({ order: false });
    await channel.say('g1', 'alice', 'hi');
    const result = await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'hello' });
    const [message] = await drainInbound(bus);
    expect(message?.order).toBeUndefined();
    expect(result.status).toBe('sent');
    expect(orderOf(result)).toBeUndefined();
    expect(channel.delivered[0]?.input).not.toHaveProperty('order');
  });
});

describe('createFakePlatformOrder', () => {
  it('numbers the messages of two replicas of one bot in one order per chat', async () => {
    const order = createFakePlatformOrder();
    const a = await attached({ order });
    const b = await attached({ order });
    const prompt = await a.bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'prompt' });
    await b.channel.say('g1', 'alice', 'reply on the other replica');
    const [reply] = await drainInbound(b.bus);
    expect(comparePlatformOrder(reply?.order, orderOf(prompt))).toBe('after');
    expect(order.next('feishu:g1')).toBe(3);
    expect(order.next('feishu:g2')).toBe(1);
  });

  it('keeps separate fake channels apart when they are given no shared order', async () => {
    const a = await attached();
    const b = await attached();
    const prompt = await a.bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'prompt' });
    await b.channel.say('g1', 'alice', 'reply');
    const [reply] = await drainInbound(b.bus);
    expect(comparePlatformOrder(reply?.order, orderOf(prompt))).toBe('same');
  });
});

describe('fake channels on one clock', () => {
  it('number their chats together, as one platform does for a bot and its restart', async () => {
    const clock = createManualClock({ now: 1_000 });
    const before = await attached({ clock });
    const prompt = await before.bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'prompt' });
    const after = await attached({ clock }); // the restarted bot
    await after.channel.say('g1', 'alice', 'reply after the restart');
    const [reply] = await drainInbound(after.bus);
    expect(comparePlatformOrder(reply?.order, orderOf(prompt))).toBe('after');
  });

  it('keep apart the channels of two clocks', async () => {
    const a = await attached({ clock: createManualClock({ now: 1_000 }) });
    const b = await attached({ clock: createManualClock({ now: 1_000 }) });
    const prompt = await a.bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'prompt' });
    await b.channel.say('g1', 'alice', 'reply');
    const [reply] = await drainInbound(b.bus);
    expect(comparePlatformOrder(reply?.order, orderOf(prompt))).toBe('same');
  });
});
