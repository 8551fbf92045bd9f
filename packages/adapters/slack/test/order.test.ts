// The platform order the adapter puts on inbound messages and on send receipts: Slack's per-channel
// `ts`, read exactly (seconds, micro-units), through the real Bolt app and WebClient against the
// Web API stand-in.
import { comparePlatformOrder, type InboundMessage, type OutboundResult } from '@parley/bus';
import { createManualClock, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackEventBody, SlackMessageBody, SlackStandIn } from '../src/testing.js';
import { CHANNEL, type Harness, startHarness, startStandIn, T0 } from './helpers.js';

let clock: ManualClock;
let api: SlackStandIn;
let h: Harness;

const SCOPE = `slack:${CHANNEL}`;

async function inboundOf(body: SlackEventBody): Promise<InboundMessage> {
  expect(await h.event(body)).toBe(200);
  return h.bus.receiveInbound();
}

function withTs(body: SlackMessageBody, ts: unknown): SlackEventBody {
  return { ...body, event: { ...body.event, ts, event_ts: ts } };
}

const orderOf = (result: OutboundResult) => (result.status === 'sent' ? result.order : undefined);

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  api = await startStandIn(clock);
  h = await startHarness({ clock, api, raw: true });
});

afterEach(async () => {
  await h.stop();
  await api.close();
});

describe('inbound order', () => {
  it('reads "1700000000.000100" as [1700000000, 100], with no floating point', async () => {
    const message = await inboundOf(withTs(api.payloads.message('确认'), '1700000000.000100'));
    expect(message.order).toEqual({ scope: SCOPE, position: [1_700_000_000, 100] });
  });

  it('gives a thread reply the order of its channel, where thread replies take their ts too', async () => {
    const message = await inboundOf(
      api.payloads.message('确认', { threadTs: '1767225600.000001', at: T0 + 5_000, seq: 42 }),
    );
    expect(message.threadId).toBe('1767225600.000001');
    expect(message.order).toEqual({ scope: SCOPE, position: [1_767_225_605, 42] });
  });

  it('keeps the place of the edited message on an edit', async () => {
    const original = api.payloads.message('取消', { at: T0, seq: 5 });
    const edit = await inboundOf(api.payloads.edit(original, '确认', { at: T0 + 30_000 }));
    expect(edit.kind).toBe('edit');
    expect(edit.order).toEqual({ scope: SCOPE, position: [1_767_225_600, 5] });
  });

  it('gives no order to a message whose ts is missing or malformed', async () => {
    for (const ts of [
      undefined,
      '',
      '1700000000',
      '1700000000.1',
      '1700000000.0001000',
      '1e9.000100',
      17e8,
    ]) {
      const message = await inboundOf(withTs(api.payloads.message('确认'), ts));
      expect(message.order).toBeUndefined();
    }
  });
});

describe('receipt order', () => {
  it("reports the posted message's ts on the OutboundResult", async () => {
    clock.advance(5_000);
    const result = await h.bus.publishOutbound({ channel: 'slack', chatId: CHANNEL, text: '确认?' });
    expect(result).toMatchObject({ status: 'sent', order: { scope: SCOPE, position: [1_767_225_605, 1] } });
  });

  it('orders a reply stamped before the prompt within the same millisecond before it', async () => {
    clock.advance(5_000);
    const prompt = await h.bus.publishOutbound({ channel: 'slack', chatId: CHANNEL, text: '确认?' }); // .005000 + 1
    const early = await inboundOf(api.payloads.message('确认', { at: T0 + 5_000, seq: 0 }));
    const late = await inboundOf(api.payloads.message('确认', { at: T0 + 5_000, seq: 2 }));
    // The millisecond stamps tie; only the ts order tells them apart.
    expect(early.createdAt).toBe(prompt.status === 'sent' ? prompt.sentAt : undefined);
    expect(comparePlatformOrder(early.order, orderOf(prompt))).toBe('before');
    expect(comparePlatformOrder(late.order, orderOf(prompt))).toBe('after');
  });

  it('scopes the receipt by the channel Slack answers with, where replies come from', async () => {
    api.reshapeNextPost((answer) => ({ ...answer, channel: 'D0ALICE001' }));
    const result = await h.bus.publishOutbound({ channel: 'slack', chatId: 'U0ALICE001', text: 'hi' });
    expect(orderOf(result)?.scope).toBe('slack:D0ALICE001');
  });

  it('reports no order when the answer has no ts or a malformed one', async () => {
    for (const ts of [undefined, '1767225600', 'abc.000001']) {
      api.reshapeNextPost((answer) => ({ ...answer, ts }));
      const result = await h.bus.publishOutbound({ channel: 'slack', chatId: CHANNEL, text: 'hi' });
      expect(result.status).toBe('sent');
      expect(orderOf(result)).toBeUndefined();
    }
  });
});
