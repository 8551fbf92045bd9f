import { afterEach, describe, expect, it } from 'vitest';
import type { BusEvents } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { FEISHU_CARD_MAX_BYTES, FeishuAdapterError, toFeishuMessage } from '../src/index.js';
import { type Bot, CHAT, cardOf, startBot } from './harness.js';

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.close();
  await bot?.feishu.close();
  bot = undefined;
});

async function started(): Promise<Bot> {
  bot = await startBot();
  return bot;
}

const base = { channel: 'feishu', chatId: CHAT, sessionKey: `feishu:${CHAT}`, createdAt: 0 };

describe('sending', () => {
  it('sends text with the tenant token and reports Feishu’s create_time as sentAt', async () => {
    const b = await started();
    b.clock.advance(42);
    const result = await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: '完成 Done.' });
    expect(result).toMatchObject({ status: 'sent', sentAt: b.clock.now() });
    const again = await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: 'again' });
    const idOf = (r: typeof result) => (r.status === 'sent' ? r.messageId : undefined);
    expect(idOf(result)).toEqual(expect.any(String));
    expect(idOf(again)).not.toBe(idOf(result)); // Feishu's message_id of each sent message
    expect(b.feishu.requests[0]).toMatchObject({
      path: '/open-apis/auth/v3/tenant_access_token/internal',
      body: { app_secret: b.feishu.appSecret },
    });
    expect(b.feishu.requests[1]?.authorization).toMatch(/^Bearer t-/);
    expect(b.feishu.sent[0]?.body).toEqual({
      receive_id: CHAT,
      msg_type: 'text',
      content: '{"text":"完成 Done."}',
    });
  });

  it('replies inside a thread, and to the message of an event id it saw', async () => {
    const b = await started();
    await b.feishu.message('q', { eventId: 'ev-q', messageId: 'om_q' });
    await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, threadId: 'om_root', text: 'in thread' });
    await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, replyTo: 'ev-q', text: 'answer' });
    await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, replyTo: 'ev-unknown', text: 'plain' });
    const [thread, reply, plain] = b.feishu.sent;
    expect(thread).toMatchObject({ replyTo: 'om_root', inThread: true, text: 'in thread' });
    expect(reply).toMatchObject({ replyTo: 'om_q', inThread: false, chatId: CHAT });
    expect(reply?.body['reply_in_thread']).toBeUndefined();
    expect(plain).toMatchObject({ inThread: false, text: 'plain' });
    expect(plain?.replyTo).toBeUndefined();
  });

  it('remembers an event id longer than 64 characters by its digest and still replies to its message', async () => {
    const b = await started();
    const eventId = `ev-${'x'.repeat(64 * 1024)}`;
    await b.feishu.message('q', { eventId, messageId: 'om_long' });
    await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, replyTo: eventId, text: 'answer' });
    await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, replyTo: `${eventId}y`, text: 'plain' });
    const [reply, plain] = b.feishu.sent;
    expect(reply).toMatchObject({ replyTo: 'om_long', text: 'answer' });
    expect(plain?.replyTo).toBeUndefined();
  });

  it('puts a click on a card sent in a thread into the thread’s session', async () => {
    const b = await started();
    await b.bus.publishOutbound({
      channel: 'feishu',
      chatId: CHAT,
      threadId: 'om_root',
      text: 'pick',
      card: { buttons: [{ label: 'A', value: 'a' }] },
    });
    await b.adapter.handles['card.action.trigger']({
      operator: { open_id: 'ou_x' },
      action: { value: { parley_value: 'a' } },
      context: { open_message_id: 'om_sent_1' },
    });
    expect(await b.bus.receiveInbound()).toMatchObject({ sessionKey: `feishu:${CHAT}:om_root`, action: 'a' });
  });
});

describe('toFeishuMessage', () => {
  it('renders a card: title, text, a body the text does not hold, and styled buttons', () => {
    const body = toFeishuMessage({
      ...base,
      text: 'prompt',
      card: {
        title: 'Confirm',
        body: 'DELETE …',
        buttons: [
          { label: '确认', value: { confirmation: 't.confirm' }, style: 'danger' },
          { label: 'Later', value: 7, style: 'primary' },
          { label: 'Plain', value: [1] },
        ],
      },
    });
    const card = cardOf({ body: { content: body.content } });
    expect(card.header?.title.content).toBe('Confirm');
    expect(card.elements.map((e) => e.text?.content ?? e.tag)).toEqual(['prompt', 'DELETE …', 'action']);
    expect(card.elements[2]?.actions?.map((a) => [a.type, a.value])).toEqual([
      ['danger', { confirmation: 't.confirm' }],
      ['primary', { parley_value: 7 }],
      ['default', { parley_value: [1] }],
    ]);
  });

  it('shows the body alone when there is no text, and nothing extra when the text holds it', () => {
    const alone = cardOf({
      body: { content: toFeishuMessage({ ...base, text: '', card: { body: 'b', buttons: [] } }).content },
    });
    expect(alone.elements).toEqual([{ tag: 'div', text: { tag: 'plain_text', content: 'b' } }]);
    const held = cardOf({
      body: {
        content: toFeishuMessage({ ...base, text: 'a b c', card: { body: 'b', buttons: [] } }).content,
      },
    });
    expect(held.elements).toHaveLength(1);
    const empty = cardOf({
      body: { content: toFeishuMessage({ ...base, text: '', card: { buttons: [] } }).content },
    });
    expect(empty.elements).toEqual([]);
  });

  it('sends a card of exactly FEISHU_CARD_MAX_BYTES and refuses one byte more', async () => {
    const b = await started();
    const sized = (n: number) => ({
      ...base,
      text: '',
      card: { body: 'x'.repeat(n), buttons: [{ label: 'ok', value: { confirmation: 'cfm_1.confirm.sig' } }] },
    });
    const overhead = toFeishuMessage(sized(1)).content.length - 1;
    const exact = sized(FEISHU_CARD_MAX_BYTES - overhead);
    expect(new TextEncoder().encode(toFeishuMessage(exact).content).length).toBe(FEISHU_CARD_MAX_BYTES);
    expect((await b.bus.publishOutbound(exact)).status).toBe('sent');
    const over = sized(FEISHU_CARD_MAX_BYTES - overhead + 1);
    const dropped: BusEvents['dropped'][] = [];
    b.bus.on('dropped', (event) => dropped.push(event));
    const result = await b.bus.publishOutbound(over);
    expect(result).toMatchObject({ status: 'rejected', code: 'send_failed' });
    expect(isParleyError(dropped[0]?.error, 'payload_too_large')).toBe(true);
    expect(b.feishu.sent).toHaveLength(1);
    expect(() => toFeishuMessage({ ...base, text: '字'.repeat(60_000) })).toThrow(FeishuAdapterError);
  });
});

describe('send failures', () => {
  async function failure(b: Bot): Promise<{ code: string; details: Record<string, unknown> }> {
    const result = await b.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: 'x' });
    expect(result.status).toBe('rejected');
    const error = (result as { error?: FeishuAdapterError }).error as FeishuAdapterError;
    return { code: error.code, details: { ...error.details } };
  }

  it('rejects rate_limited on HTTP 429 with the reset header as retryAfterMs', async () => {
    const b = await started();
    b.feishu.failNext({
      status: 429,
      body: { code: 99991400, msg: 'request trigger frequency limit' },
      headers: { 'x-ogw-ratelimit-limit': '50', 'x-ogw-ratelimit-reset': '3' },
    });
    expect(await failure(b)).toEqual({
      code: 'rate_limited',
      details: {
        operation: 'im.message.create',
        status: 429,
        platformCode: 99991400,
        platformMessage: 'request trigger frequency limit',
        retryAfterMs: 3000,
      },
    });
  });

  it('rejects rate_limited on the IM send limit (code 230020) without a reset time', async () => {
    const b = await started();
    b.feishu.failNext({
      status: 400,
      body: { code: 230020, msg: 'This operation triggers the frequency limit.' },
    });
    const { code, details } = await failure(b);
    expect(code).toBe('rate_limited');
    expect(details['retryAfterMs']).toBeUndefined();
  });

  it('rejects send_failed with Feishu’s code for an HTTP error and for code ≠ 0 in a 200', async () => {
    const b = await started();
    b.feishu.failNext(
      { status: 400, body: { code: 230002, msg: 'The bot is not in the chat.' } },
      { status: 200, body: { code: 230001, msg: 'invalid receive_id' } },
      { status: 200, body: { msg: 'no code' } },
    );
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { status: 400, platformCode: 230002 },
    });
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { platformCode: 230001, platformMessage: 'invalid receive_id' },
    });
    expect(await failure(b)).toMatchObject({ code: 'send_failed', details: { platformMessage: 'no code' } });
  });

  it('rejects send_failed when the tenant token cannot be had, or the API cannot be reached', async () => {
    bot = await startBot({ appSecret: 'not-the-secret' });
    const b = bot;
    expect(await failure(b)).toMatchObject({
      code: 'send_failed',
      details: { platformCode: 10014, platformMessage: 'app secret invalid' },
    });
    expect(b.feishu.requests.map((r) => r.path)).toEqual(['/open-apis/auth/v3/tenant_access_token/internal']);
    const unreachable = await startBot({ shared: { clock: b.clock, store: b.store, feishu: b.feishu } });
    await b.feishu.close();
    const result = await unreachable.bus.publishOutbound({ channel: 'feishu', chatId: CHAT, text: 'x' });
    expect(isParleyError((result as { error?: unknown }).error, 'send_failed')).toBe(true);
    await unreachable.close();
  });
});
