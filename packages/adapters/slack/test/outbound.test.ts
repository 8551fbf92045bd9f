// What `send` posts (Block Kit cards, threads, escaping, Slack's field limits) and how Web API
// refusals and rate limits reach the bus: through the real WebClient against the stand-in.
import type { BusEvents, OutboundInput } from '@parley/bus';
import { createManualClock, isParleyError, type ManualClock } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackStandIn } from '../src/testing.js';
import { CHANNEL, type Harness, startHarness, startStandIn, T0 } from './helpers.js';

let clock: ManualClock;
let api: SlackStandIn;
let h: Harness;
let dropped: BusEvents['dropped'][];

function card(value: string, label = 'Go'): OutboundInput {
  return { channel: 'slack', chatId: CHANNEL, text: 'Pick one', card: { buttons: [{ label, value }] } };
}

async function errorOf(input: OutboundInput): Promise<unknown> {
  const result = await h.bus.publishOutbound(input);
  return result.status === 'rejected' ? result.error : undefined;
}

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  api = await startStandIn(clock);
  h = await startHarness({ clock, api });
  dropped = [];
  h.bus.on('dropped', (event) => dropped.push(event));
});

afterEach(async () => {
  await h.stop();
  await api.close();
});

describe('send', () => {
  it("reports Slack's ts of the posted message as sentAt, to the millisecond", async () => {
    clock.advance(1_234);
    const result = await h.bus.publishOutbound({ channel: 'slack', chatId: CHANNEL, text: 'hi' });
    expect(result).toMatchObject({ status: 'sent', sentAt: T0 + 1_234 });
    // the message's id is its ts, which also gave sentAt
    const ts = result.status === 'sent' ? result.messageId : undefined;
    expect(ts).toMatch(/^\d+\.\d{6}$/);
    expect(Math.floor(Number(ts) * 1000)).toBe(T0 + 1_234);
    expect(api.calls('chat.postMessage')[0]?.params).toMatchObject({ channel: CHANNEL, text: 'hi' });
  });

  it('posts into the thread and escapes what Slack reads as markup', async () => {
    await h.bus.publishOutbound({
      channel: 'slack',
      chatId: CHANNEL,
      threadId: '1767225600.000100',
      text: 'a<b>&c',
    });
    expect(api.calls('chat.postMessage')[0]?.params).toMatchObject({
      thread_ts: '1767225600.000100',
      text: 'a&lt;b&gt;&amp;c',
    });
  });

  it('renders a card as a header, plain-text sections holding the whole body, and styled buttons', async () => {
    const body = `${'x'.repeat(3000)}yz`;
    await h.bus.publishOutbound({
      channel: 'slack',
      chatId: CHANNEL,
      text: '',
      card: {
        title: 'Confirm',
        body,
        buttons: [
          { label: '确认', value: { confirmation: 'a.confirm' }, style: 'danger' },
          { label: '取消', value: { confirmation: 'a.cancel' }, style: 'default' },
        ],
      },
    });
    const params = api.calls('chat.postMessage')[0]?.params ?? {};
    expect(params['text']).toBe(`Confirm\n${body}`);
    expect(params['blocks']).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Confirm', emoji: true } },
      { type: 'section', text: { type: 'plain_text', text: 'x'.repeat(3000), emoji: true } },
      { type: 'section', text: { type: 'plain_text', text: 'yz', emoji: true } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'parley:0',
            text: { type: 'plain_text', text: '确认', emoji: true },
            value: '{"confirmation":"a.confirm"}',
            style: 'danger',
          },
          {
            type: 'button',
            action_id: 'parley:1',
            text: { type: 'plain_text', text: '取消', emoji: true },
            value: '{"confirmation":"a.cancel"}',
          },
        ],
      },
    ]);
  });

  it('never splits a surrogate pair between two sections', async () => {
    const body = `${'x'.repeat(2999)}😀z`;
    await h.bus.publishOutbound({
      channel: 'slack',
      chatId: CHANNEL,
      text: 't',
      card: { body, buttons: [] },
    });
    const blocks = api.calls('chat.postMessage')[0]?.params['blocks'] as { text: { text: string } }[];
    expect(blocks.map((b) => b.text.text)).toEqual(['x'.repeat(2999), '😀z']);
  });

  it('shows the text in the card when the card has no body', async () => {
    await h.bus.publishOutbound({ channel: 'slack', chatId: CHANNEL, text: 'Sure?', card: { buttons: [] } });
    expect(api.calls('chat.postMessage')[0]?.params['blocks']).toEqual([
      { type: 'section', text: { type: 'plain_text', text: 'Sure?', emoji: true } },
    ]);
  });
});

describe("Slack's limits", () => {
  it('sends a button value of exactly 2000 characters', async () => {
    const value = 'v'.repeat(1998); // JSON adds the two quotes
    expect((await h.bus.publishOutbound(card(value))).status).toBe('sent');
  });

  it('refuses a button value of 2001 characters, and posts nothing', async () => {
    const error = await errorOf(card('v'.repeat(1999)));
    expect(isParleyError(error, 'button_value_too_long')).toBe(true);
    expect(error).toMatchObject({ details: { length: 2001, limit: 2000 } });
    expect(dropped).toMatchObject([{ direction: 'outbound', code: 'send_failed' }]);
    expect(api.calls('chat.postMessage')).toHaveLength(0);
  });

  it("refuses a button label longer than Slack's 75 characters", async () => {
    expect(isParleyError(await errorOf(card('v', 'L'.repeat(76))), 'button_label_too_long')).toBe(true);
  });
});

describe('failures', () => {
  it('surfaces HTTP 429 with Retry-After as rate_limited with retryAfterMs', async () => {
    api.failNext('chat.postMessage', { status: 429, retryAfter: 30 });
    const error = await errorOf({ channel: 'slack', chatId: CHANNEL, text: 'hi' });
    expect(isParleyError(error, 'rate_limited')).toBe(true);
    expect(error).toMatchObject({ details: { retryAfterMs: 30_000 } });
    expect(dropped).toMatchObject([{ code: 'send_failed', error }]);
  });

  it('surfaces an ok:false "ratelimited" answer as rate_limited', async () => {
    api.failNext('chat.postMessage', { error: 'ratelimited' });
    expect(
      isParleyError(await errorOf({ channel: 'slack', chatId: CHANNEL, text: 'hi' }), 'rate_limited'),
    ).toBe(true);
  });

  it("surfaces any other refusal as platform_error with Slack's error", async () => {
    api.failNext('chat.postMessage', { error: 'channel_not_found' });
    const error = await errorOf({ channel: 'slack', chatId: CHANNEL, text: 'hi' });
    expect(isParleyError(error, 'platform_error')).toBe(true);
    expect(error).toMatchObject({ details: { error: 'channel_not_found' } });
  });

  it('surfaces an HTTP error status as platform_error with the status', async () => {
    api.failNext('chat.postMessage', { status: 500 });
    const error = await errorOf({ channel: 'slack', chatId: CHANNEL, text: 'hi' });
    expect(isParleyError(error, 'platform_error')).toBe(true);
    expect(error).toMatchObject({ details: { statusCode: 500 } });
  });

  it('surfaces a lost connection as network_error', async () => {
    api.failNext('chat.postMessage', { drop: true });
    expect(
      isParleyError(await errorOf({ channel: 'slack', chatId: CHANNEL, text: 'hi' }), 'network_error'),
    ).toBe(true);
  });
});
