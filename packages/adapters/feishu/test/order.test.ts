// The platform order the adapter puts on inbound messages and on send receipts: Feishu's
// `create_time` (epoch ms, as text), through the real SDK against the OpenAPI stand-in.
import { comparePlatformOrder, type InboundMessage, type OutboundResult } from '@parley/bus';
import { createManualClock, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeishuStandIn } from '@parley/feishu/testing';
import { CHAT, type Process, startFeishu, startProcess, T0 } from './harness.js';

let clock: ManualClock;
let feishu: FeishuStandIn;
let p: Process;

const SCOPE = `feishu:${CHAT}`;

async function inboundOf(body: Record<string, unknown>): Promise<InboundMessage> {
  await feishu.event(body);
  return p.bus.receiveInbound();
}

/** A message event written at `at` (the stand-in stamps events with its clock). */
function writtenAt(at: number): Record<string, unknown> {
  return stamped(feishu.messageEvent('确认'), String(at));
}

/** The event with its message's create_time replaced (or removed, for `undefined`). */
function stamped(body: Record<string, unknown>, createTime: unknown): Record<string, unknown> {
  const event = body['event'] as { message: Record<string, unknown> };
  return { ...body, event: { ...event, message: { ...event.message, create_time: createTime } } };
}

const orderOf = (result: OutboundResult) => (result.status === 'sent' ? result.order : undefined);

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  feishu = await startFeishu(clock);
  p = await startProcess(clock, feishu);
});

afterEach(async () => {
  await p.close();
  await feishu.close();
});

describe('inbound order', () => {
  it("gives a message its create_time as its place in the chat's order", async () => {
    clock.advance(1_234);
    const message = await inboundOf(feishu.messageEvent('确认'));
    expect(message.order).toEqual({ scope: SCOPE, position: [T0 + 1_234] });
  });

  it('gives a thread message the order of its chat', async () => {
    clock.advance(5);
    const body = feishu.messageEvent('确认', { rootId: 'om_root', threadId: 'omt_1' });
    const message = await inboundOf(body);
    expect(message.threadId).toBe('om_root');
    expect(message.order).toEqual({ scope: SCOPE, position: [T0 + 5] });
  });

  it('gives no order to a message whose create_time is missing or not a whole number of ms', async () => {
    for (const createTime of [undefined, '', '0', '-5', '1.5e12', ' 1767225600000', 1_767_225_600_000]) {
      const message = await inboundOf(stamped(feishu.messageEvent('确认'), createTime));
      expect(message.order).toBeUndefined();
    }
  });
});

describe('receipt order', () => {
  it("reports the sent message's create_time on the OutboundResult", async () => {
    clock.advance(700);
    const result = await p.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: '确认?' });
    expect(result).toMatchObject({ status: 'sent', order: { scope: SCOPE, position: [T0 + 700] } });
  });

  it('compares a reply of the same millisecond as the same place, which is never after', async () => {
    clock.advance(700);
    const prompt = await p.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: '确认?' });
    const tie = await inboundOf(writtenAt(T0 + 700));
    const later = await inboundOf(writtenAt(T0 + 701));
    const earlier = await inboundOf(writtenAt(T0 + 699));
    expect(comparePlatformOrder(tie.order, orderOf(prompt))).toBe('same');
    expect(comparePlatformOrder(later.order, orderOf(prompt))).toBe('after');
    expect(comparePlatformOrder(earlier.order, orderOf(prompt))).toBe('before');
  });

  it('reports no order when the answer has no create_time or a malformed one', async () => {
    for (const createTime of [undefined, 'soon', '12.5']) {
      feishu.failNext({
        status: 200,
        body: { code: 0, msg: 'success', data: { message_id: 'om_x', create_time: createTime } },
      });
      const result = await p.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: 'hi' });
      expect(result.status).toBe('sent');
      expect(orderOf(result)).toBeUndefined();
    }
  });
});
