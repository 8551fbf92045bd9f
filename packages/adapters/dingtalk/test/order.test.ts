// The platform order the adapter puts on inbound messages: DingTalk's `createAt` (epoch ms),
// through the real DWClient against the stream stand-in. DingTalk's send answers carry no place
// of the sent message, so receipts carry no order.
import { comparePlatformOrder, type InboundMessage } from '@parley/bus';
import { TOPIC_ROBOT } from 'dingtalk-stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type Bot, DIRECT, GROUP, startQuiet, stopQuiet } from './harness.js';

afterEach(stopQuiet);

async function inboundOf(b: Bot, message: Record<string, unknown>): Promise<InboundMessage> {
  await b.dingtalk.push(TOPIC_ROBOT, message).acked;
  return b.bus.receiveInbound();
}

describe('inbound order', () => {
  it("gives a robot message its createAt as its place in the conversation's order", async () => {
    const b = await startQuiet();
    b.clock.advance(42);
    const message = await inboundOf(b, b.dingtalk.robotMessage('确认'));
    expect(message.order).toEqual({ scope: `dingtalk:${GROUP}`, position: [b.clock.now()] });
  });

  it('scopes a direct chat by its own conversation', async () => {
    const b = await startQuiet();
    const message = await inboundOf(b, b.dingtalk.robotMessage('确认', { conversationType: '1' }));
    expect(message.order?.scope).toBe(`dingtalk:${DIRECT}`);
  });

  it('compares two messages of one millisecond as the same place, whatever their msgIds', async () => {
    const b = await startQuiet();
    const first = await inboundOf(b, b.dingtalk.robotMessage('确认', { msgId: 'msgZ==' }));
    const second = await inboundOf(b, b.dingtalk.robotMessage('确认', { msgId: 'msgA==' }));
    expect(comparePlatformOrder(second.order, first.order)).toBe('same');
  });

  it('gives no order to a message whose createAt is missing or not a whole number of ms', async () => {
    const b = await startQuiet();
    for (const createAt of [undefined, 0, -1, 1.5, '1767225600000', null]) {
      const message = await inboundOf(b, b.dingtalk.robotMessage('确认', { extra: { createAt } }));
      expect(message.order).toBeUndefined();
    }
  });
});

describe('receipt order', () => {
  it('reports no order for a sent message: the answer names no place of it', async () => {
    const b = await startQuiet();
    const result = await b.bus.publishOutbound({ channel: 'dingtalk', chatId: GROUP, text: '确认?' });
    expect(result.status).toBe('sent');
    expect(result.status === 'sent' ? result.order : 'rejected').toBeUndefined();
  });
});
