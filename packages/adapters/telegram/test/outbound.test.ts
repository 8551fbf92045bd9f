// What `send` makes of the bus's messages, the 64-byte callback_data limit, and how Bot API
// refusals (429 with retry_after, 400) and lost connections reach the bus: through the real grammY
// client against the Bot API stand-in.
import type { BusEvents, OutboundInput } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  isParleyError,
  type ManualClock,
  type Store,
} from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter, MAX_CALLBACK_DATA_BYTES, type TelegramAdapterEvents } from '../src/index.js';
import type { TelegramStandIn } from '../src/testing.js';
import {
  ALICE,
  GROUP_ID,
  type Harness,
  type HarnessOptions,
  startHarness,
  startStandIn,
  T0,
} from './helpers.js';

let clock: ManualClock;
let api: TelegramStandIn;
let h: Harness;
let dropped: BusEvents['dropped'][];
let errors: TelegramAdapterEvents['error'][];

const CHAT = String(GROUP_ID);

type Keyboard = { inline_keyboard: { callback_data: string }[][] };

async function start(options: Partial<HarnessOptions> = {}): Promise<void> {
  h = await startHarness({ mode: 'webhook', clock, api, ...options });
  h.bus.on('dropped', (event) => dropped.push(event));
  h.telegram.on('error', (event) => errors.push(event));
}

function card(value: string): OutboundInput {
  return {
    channel: 'telegram',
    chatId: CHAT,
    text: 'Pick one',
    card: { buttons: [{ label: 'Go', value: { confirmation: value } }] },
  };
}

beforeEach(async () => {
  clock = createManualClock({ now: T0 * 1000 });
  api = await startStandIn(clock);
  dropped = [];
  errors = [];
});

afterEach(async () => {
  await h.stop();
  await api.close();
});

describe('send', () => {
  it("reports the end of the platform's whole-second stamp as sentAt", async () => {
    await start();
    clock.advance(250);
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    expect(result).toMatchObject({ status: 'sent', sentAt: T0 * 1000 + 999 });
    // the platform's message id comes back for the consent ledger's delivered-prompt entry
    const again = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'again' });
    const idOf = (r: typeof result) => (r.status === 'sent' ? r.messageId : undefined);
    expect(idOf(result)).toMatch(/^\d+$/);
    expect(Number(idOf(again))).toBeGreaterThan(Number(idOf(result)));
    expect(api.calls('sendMessage')[0]).toMatchObject({ params: { chat_id: GROUP_ID, text: 'hi' } });
  });

  it('sends to a forum topic and answers the message it replies to', async () => {
    await start();
    const incoming = api.updates.message('/purge', { thread: 42 });
    await h.feed(incoming);
    const message = await h.bus.receiveInbound();
    await h.bus.publishOutbound({
      channel: 'telegram',
      chatId: message.chatId,
      threadId: message.threadId,
      text: 'on it',
      replyTo: message.eventId,
    });
    expect(api.calls('sendMessage')[0]?.params).toMatchObject({
      message_thread_id: 42,
      reply_parameters: { message_id: incoming.message.message_id },
    });
  });

  it('ignores a replyTo that names no message of this chat, and keeps a non-numeric chat id', async () => {
    await start();
    await h.bus.publishOutbound({ channel: 'telegram', chatId: '@ops_news', text: 'x', replyTo: '-5:9' });
    expect(api.calls('sendMessage')[0]?.params).toEqual({ chat_id: '@ops_news', text: 'x' });
  });

  it("shows a card's title and body when the message has no text", async () => {
    await start();
    await h.bus.publishOutbound({
      channel: 'telegram',
      chatId: CHAT,
      text: '',
      card: { title: 'Confirm', body: 'DELETE', buttons: [] },
    });
    expect(api.calls('sendMessage')[0]?.params).toEqual({ chat_id: GROUP_ID, text: 'Confirm\nDELETE' });
  });

  it('sends a text past 4096 characters as several messages, uncut, with the keyboard on the last', async () => {
    await start();
    const text = `${'a'.repeat(4095)}😀${'b'.repeat(10)}`;
    await h.bus.publishOutbound({ ...card('t.confirm'), text });
    const sent = api.calls('sendMessage');
    expect(sent.map((call) => String(call.params['text']).length)).toEqual([4095, 12]);
    expect(sent.map((call) => call.params['text']).join('')).toBe(text);
    expect(sent[0]?.params['reply_markup']).toBeUndefined();
    expect(sent[1]?.params['reply_markup']).toBeDefined();
  });
});

describe('callback_data limit', () => {
  it('sends a button whose callback_data is exactly 64 bytes', async () => {
    await start();
    const value = 'x'.repeat(MAX_CALLBACK_DATA_BYTES - 'p:c:'.length);
    expect((await h.bus.publishOutbound(card(value))).status).toBe('sent');
    const markup = api.calls('sendMessage')[0]?.params['reply_markup'];
    expect(markup).toEqual({ inline_keyboard: [[{ text: 'Go', callback_data: `p:c:${value}` }]] });
  });

  it('refuses a card whose callback_data would be 65 bytes, and sends nothing', async () => {
    await start();
    const value = 'x'.repeat(MAX_CALLBACK_DATA_BYTES - 'p:c:'.length + 1);
    const result = await h.bus.publishOutbound(card(value));
    expect(result).toMatchObject({ status: 'rejected', code: 'send_failed' });
    const error = result.status === 'rejected' ? result.error : undefined;
    expect(isParleyError(error, 'callback_data_too_long')).toBe(true);
    expect(error).toMatchObject({ details: { bytes: 65, limit: 64, label: 'Go' } });
    expect(dropped).toMatchObject([{ direction: 'outbound', code: 'send_failed' }]);
    expect(api.calls('sendMessage')).toHaveLength(0);
  });

  it('sends any other button value as JSON', async () => {
    await start();
    await h.bus.publishOutbound({ ...card(''), card: { buttons: [{ label: 'A', value: ['a', 1] }] } });
    const markup = api.calls('sendMessage')[0]?.params['reply_markup'];
    expect(markup).toEqual({ inline_keyboard: [[{ text: 'A', callback_data: 'p:j:["a",1]' }]] });
  });

  it('counts bytes, not characters: multi-byte values reach the limit sooner', async () => {
    await start();
    const result = await h.bus.publishOutbound(card('确'.repeat(21))); // 4 + 63 bytes
    expect(result.status === 'rejected' && isParleyError(result.error, 'callback_data_too_long')).toBe(true);
  });

  it('keeps a value too long for callback_data in the buttonStore and resolves the click from it', async () => {
    const store = createMemoryStore({ clock });
    await start({ raw: true, adapter: { buttonStore: store, generateId: () => 'k1' } });
    const long = { confirmation: 'y'.repeat(80) };
    await h.bus.publishOutbound({ ...card(''), card: { buttons: [{ label: 'Go', value: long }] } });
    const markup = api.calls('sendMessage')[0]?.params['reply_markup'];
    expect(markup).toEqual({ inline_keyboard: [[{ text: 'Go', callback_data: 'p:k:k1' }]] });
    await h.feed(api.updates.click('p:k:k1'));
    expect((await h.bus.receiveInbound()).action).toEqual(long);
  });

  it('answers a click whose stored value expired, without delivering it', async () => {
    const store = createMemoryStore({ clock });
    await start({ raw: true, adapter: { buttonStore: store, buttonTtlMs: 60_000 } });
    await h.bus.publishOutbound(card('z'.repeat(70)));
    const markup = api.calls('sendMessage')[0]?.params['reply_markup'] as Keyboard;
    const data = markup.inline_keyboard[0]?.[0]?.callback_data as string;
    clock.advance(60_000);
    const click = api.updates.click(data);
    await h.feed(click);
    expect(h.bus.size.inbound).toBe(0);
    const skipped: TelegramAdapterEvents['skipped'][] = [];
    h.telegram.on('skipped', (event) => skipped.push(event));
    await h.feed(api.updates.click(data));
    expect(skipped).toMatchObject([{ reason: 'unknown_button' }]);
    expect(api.calls('answerCallbackQuery')).toHaveLength(2);
  });

  it('reports a store that fails while reading a button, and answers the click', async () => {
    const failing: Store = { ...createMemoryStore(), get: () => Promise.reject(new Error('store down')) };
    await start({ adapter: { buttonStore: failing } });
    await h.feed(api.updates.click('p:k:gone'));
    expect(errors).toMatchObject([{ code: 'button_lookup_failed' }]);
    expect(api.calls('answerCallbackQuery')).toHaveLength(1);
  });

  it('refuses a generateId whose key does not fit in callback_data', async () => {
    await start({ adapter: { buttonStore: createMemoryStore(), generateId: () => 'k'.repeat(61) } });
    const result = await h.bus.publishOutbound(card('w'.repeat(70)));
    expect(result.status === 'rejected' && isParleyError(result.error, 'invalid_argument')).toBe(true);
  });

  it('rejects a buttonTtlMs that is not a positive duration', () => {
    expect(() => createTelegramAdapter({ bot: { api: {} as never }, buttonTtlMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_timeout' }),
    );
  });

  it("lets a gate with a secret (signed tokens, too long for callback_data) run on Telegram's buttons", async () => {
    const store = createMemoryStore({ clock });
    await start({ adapter: { buttonStore: store } });
    const gate = createConfirmGate({ bus: h.bus, clock, store, secret: 'host-secret' });
    const decision = gate.request({
      sessionKey: `telegram:${GROUP_ID}`,
      requester: String(ALICE.id),
      action: { name: 'sql.delete', args: {} },
      summary: 'DELETE',
    });
    const sent = await api.waitFor('sendMessage');
    const row = (sent.params['reply_markup'] as { inline_keyboard: { callback_data: string }[][] })
      .inline_keyboard[0];
    expect(row?.every((button) => button.callback_data.startsWith('p:k:'))).toBe(true);
    clock.advance(1_000);
    await h.feed(api.updates.click(row?.[0]?.callback_data as string));
    expect(await decision).toMatchObject({ outcome: 'confirmed', reason: 'card' });
    await gate.close();
  });
});

describe('failures', () => {
  it('surfaces a 429 as rate_limited with retryAfterMs from parameters.retry_after', async () => {
    await start();
    api.failNext('sendMessage', {
      error_code: 429,
      description: 'Too Many Requests: retry after 3',
      parameters: { retry_after: 3 },
    });
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    const error = result.status === 'rejected' ? result.error : undefined;
    expect(isParleyError(error, 'rate_limited')).toBe(true);
    expect(error).toMatchObject({ details: { retryAfterMs: 3000, method: 'sendMessage' } });
    expect(dropped).toMatchObject([{ direction: 'outbound', code: 'send_failed', error }]);
  });

  it('surfaces a 429 without retry_after as rate_limited without a delay', async () => {
    await start();
    api.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests' });
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    const error = result.status === 'rejected' ? result.error : undefined;
    expect(isParleyError(error, 'rate_limited')).toBe(true);
    expect((error as { details: object }).details).not.toHaveProperty('retryAfterMs');
  });

  it('surfaces any other refusal as platform_error with its code and description', async () => {
    await start();
    api.failNext('sendMessage', { error_code: 400, description: 'Bad Request: chat not found' });
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    const error = result.status === 'rejected' ? result.error : undefined;
    expect(isParleyError(error, 'platform_error')).toBe(true);
    expect(error).toMatchObject({ details: { errorCode: 400, description: 'Bad Request: chat not found' } });
  });

  it('surfaces a lost connection as network_error', async () => {
    await start();
    api.dropNext('sendMessage');
    const result = await h.bus.publishOutbound({ channel: 'telegram', chatId: CHAT, text: 'hi' });
    expect(result.status === 'rejected' && isParleyError(result.error, 'network_error')).toBe(true);
  });

  it('reports a failed answerCallbackQuery and still delivers the click', async () => {
    await start({ raw: true });
    api.failNext('answerCallbackQuery', { error_code: 400, description: 'Bad Request: query is too old' });
    const click = api.updates.click('p:c:a.confirm');
    await h.feed(click);
    expect(errors).toMatchObject([{ code: 'answer_failed', updateId: click.update_id }]);
    expect(isParleyError(errors[0]?.error, 'platform_error')).toBe(true);
    expect((await h.bus.receiveInbound()).kind).toBe('card_action');
  });
});
