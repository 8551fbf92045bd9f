import { describe, expect, it } from 'vitest';
import {
  comparePlatformOrder,
  createMessageBus,
  isPlatformOrder,
  type PlatformOrder,
  type SendReceipt,
} from '../src/index.js';

const at = (...position: number[]): PlatformOrder => ({ scope: 'tg:1', position });

describe('comparePlatformOrder', () => {
  it('orders positions element by element, most significant first', () => {
    expect(comparePlatformOrder(at(42), at(41))).toBe('after');
    expect(comparePlatformOrder(at(41), at(42))).toBe('before');
    expect(comparePlatformOrder(at(41), at(41))).toBe('same');
    expect(comparePlatformOrder(at(1_700_000_000, 200), at(1_700_000_000, 100))).toBe('after');
    expect(comparePlatformOrder(at(1_700_000_000, 99), at(1_700_000_001, 0))).toBe('before');
  });

  it('cannot tell order across scopes, without a position, or when one side is coarser and they agree', () => {
    expect(comparePlatformOrder(at(2), { scope: 'tg:2', position: [1] })).toBe('unknown');
    expect(comparePlatformOrder(undefined, at(1))).toBe('unknown');
    expect(comparePlatformOrder(at(1), undefined)).toBe('unknown');
    expect(comparePlatformOrder(at(5), at(5, 3))).toBe('unknown');
    expect(comparePlatformOrder(at(6), at(5, 3))).toBe('after');
    expect(comparePlatformOrder({ scope: 'tg:1', position: [] }, at(1))).toBe('unknown');
  });
});

describe('isPlatformOrder', () => {
  it('accepts a scope and one to four finite numbers, and nothing else', () => {
    expect(isPlatformOrder(at(1, 2, 3, 4))).toBe(true);
    for (const bad of [
      null,
      'tg:1',
      { scope: '', position: [1] },
      { scope: 'x'.repeat(513), position: [1] },
      { scope: 'tg:1', position: [1, 2, 3, 4, 5] },
      { scope: 'tg:1', position: [Number.NaN] },
      { scope: 'tg:1', position: ['1'] },
      { scope: 'tg:1', position: 1 },
      { scope: 7, position: [1] },
    ]) {
      expect(isPlatformOrder(bad)).toBe(false);
    }
  });
});

describe('platform order through the bus', () => {
  it('carries an inbound order onto the message, as a copy', async () => {
    const bus = createMessageBus();
    const order = { scope: 'tg:1', position: [7] };
    await bus.publishInbound({ channel: 'tg', chatId: '1', senderId: 'u', text: 'hi', order });
    order.position.push(1);
    const message = await bus.receiveInbound();
    expect(message.order).toEqual({ scope: 'tg:1', position: [7] });
  });

  it('refuses an inbound message whose order is malformed, naming the field', async () => {
    const bus = createMessageBus();
    const result = await bus.publishInbound({
      channel: 'tg',
      chatId: '1',
      senderId: 'u',
      text: 'hi',
      order: { scope: 'tg:1', position: [Number.POSITIVE_INFINITY] },
    });
    expect(result).toMatchObject({ status: 'rejected', code: 'invalid_message' });
    expect(String((result as { error?: unknown }).error)).toContain('order');
  });

  it('passes on a valid order from a send receipt and leaves out a malformed one', async () => {
    const receipts: unknown[] = [
      { order: { scope: 'tg:1', position: [8] }, sentAt: 5 },
      { order: { scope: 'tg:1', position: [] } },
      { order: 'tg:1/8' },
    ];
    const bus = createMessageBus();
    await bus.attach({ channel: 'tg', send: () => receipts.shift() as SendReceipt });
    const first = await bus.publishOutbound({ channel: 'tg', chatId: '1', text: 'x' });
    expect(first).toMatchObject({ status: 'sent', sentAt: 5, order: { scope: 'tg:1', position: [8] } });
    for (let i = 0; i < 2; i++) {
      const result = await bus.publishOutbound({ channel: 'tg', chatId: '1', text: 'x' });
      expect(result.status).toBe('sent');
      expect(result).not.toHaveProperty('order');
    }
  });
});
