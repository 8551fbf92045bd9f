// The platform order the adapter puts on inbound messages and on send receipts: Telegram's
// per-chat `message_id`, through the real grammY client against the Bot API stand-in.
import { comparePlatformOrder, type InboundMessage } from '@parley/bus';
import { createManualClock, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TelegramStandIn, TelegramStandInUpdate } from '../src/testing.js';
import { GROUP_ID, type Harness, startHarness, startStandIn, T0 } from './helpers.js';

let clock: ManualClock;
let api: TelegramStandIn;
let h: Harness;

const CHAT = String(GROUP_ID);
const SCOPE = `telegram:${GROUP_ID}`;

async function inboundOf(update: TelegramStandInUpdate): Promise<InboundMessage> {
  await h.feed(update);
  return h.bus.receiveInbound();
}

beforeEach(async () => {
  clock = createManualClock({ now: T0 * 1000 });
  api = await startStandIn(clock);
  h = await startHarness({ mode: 'webhook', clock, api, raw: true });
});

afterEach(async () => {
  await h.stop();
  await api.close();
});

describe('inbound order', () => {
  it("gives a message its chat's message_id as its place in the chat's order", async () => {
    const update = api.updates.message('确认');
    const message = await inboundOf(update);
    expect(message.order).toEqual({ scope: SCOPE, position: [update.message.message_id] });
  });

  it('gives a forum topic message the order of its chat, which numbers topics together', async () => {
    const update = api.updates.message('确认', { thread: 42 });
    const message = await inboundOf(update);
    expect(message.threadId).toBe('42');
    expect(message.order).toEqual({ scope: SCOPE, position: [update.message.message_id] });
  });

  it('keeps the place of the edited message on an edit', async () => {
    const original = api.updates.message('取消');
    const edit = await inboundOf(api.updates.edit(original, '确认', { date: T0 + 60 }));
    expect(edit.kind).toBe('edit');
    expect(edit.order).toEqual({ scope: SCOPE, position: [original.message.message_id] });
  });

  it('gives no order to a message without a usable message_id', async () => {
    for (const messageId of [undefined, 0, -3, 1.5, '7']) {
      const update = api.updates.message('确认');
      const message = await inboundOf({ ...update, message: { ...update.message, message_id: messageId } });
      expect(message.order).toBeUndefined();
    }
  });
});

describe('receipt order', () => {
  it("reports the sent message's message_id on the OutboundResult", async () => {
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    expect(result).toMatchObject({ status: 'sent', order: { scope: SCOPE, position: [101] } });
  });

  it('orders a reply written after the prompt after it, and one written before it before it', async () => {
    const before = await inboundOf(api.updates.message('确认')); // 101
    const prompt = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: '确认?' }); // 102
    const after = await inboundOf(api.updates.message('确认')); // 103
    const promptOrder = prompt.status === 'sent' ? prompt.order : undefined;
    expect(promptOrder).toEqual({ scope: SCOPE, position: [102] });
    expect(comparePlatformOrder(before.order, promptOrder)).toBe('before');
    expect(comparePlatformOrder(after.order, promptOrder)).toBe('after');
  });

  it('reports the last piece of a text sent in several messages', async () => {
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'x'.repeat(5000) });
    expect(api.calls('sendMessage')).toHaveLength(2);
    expect(result).toMatchObject({ status: 'sent', order: { scope: SCOPE, position: [102] } });
  });

  it('reports no order when the sent message comes back without a message_id', async () => {
    api.reshapeNextSent(({ message_id: _dropped, ...rest }) => rest);
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    expect(result.status).toBe('sent');
    expect(result.status === 'sent' ? result.order : 'rejected').toBeUndefined();
  });
});
