// The exported Bot API stand-in on its own, spoken to over HTTP as grammY does: the documented
// shapes it answers with, getUpdates' offsets and long polls on the clock, webhook delivery with
// the secret token, what it refuses as Telegram would, and close().
import { createManualClock, isParleyError, type ManualClock } from '@parley/core';
import { sendRequest, serveLoopback } from '@parley/testing/loopback';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramStandIn, type TelegramStandIn } from '../src/testing.js';
import { ALICE, GROUP, GROUP_ID, MALLORY, T0 } from './helpers.js';

let clock: ManualClock;
let api: TelegramStandIn;

interface Answer {
  readonly status: number;
  readonly json: { ok: boolean; result?: unknown; error_code?: number; description?: string };
}

/** Calls a Bot API method as grammY does: a JSON POST to `<apiRoot>/bot<token>/<method>`. */
async function call(method: string, params: object = {}, token = api.token): Promise<Answer> {
  const headers = { 'content-type': 'application/json' };
  const answer = await sendRequest(`${api.url}/bot${token}/${method}`, {
    headers,
    body: JSON.stringify(params),
  });
  return { status: answer.status, json: JSON.parse(answer.text) as Answer['json'] };
}

const resultOf = async (method: string, params: object = {}): Promise<unknown> =>
  (await call(method, params)).json.result;

beforeEach(async () => {
  clock = createManualClock({ now: T0 * 1000 });
  api = await createTelegramStandIn({ clock, user: ALICE, chat: GROUP });
});

afterEach(async () => {
  await api.close();
});

describe('methods', () => {
  it('answers getMe with the bot and a token made from its id', async () => {
    expect(await call('getMe')).toEqual({ status: 200, json: { ok: true, result: api.bot } });
    expect(api.token.startsWith(`${api.bot.id}:`)).toBe(true);
  });

  it('refuses a wrong token with 401 and an unknown method with 404, in the Bot API shape', async () => {
    expect(await call('getMe', {}, '1:wrong')).toEqual({
      status: 401,
      json: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    expect(await call('sendDice')).toEqual({
      status: 404,
      json: { ok: false, error_code: 404, description: 'Not Found: method not found' },
    });
    expect(api.calls('sendDice')).toEqual([{ method: 'sendDice', params: {} }]);
    expect(api.calls('getMe')).toEqual([]); // a refused token is no call of the bot
  });

  it('sends a message numbered after the chat messages before it, stamped on the clock, and records it', async () => {
    api.updates.message('hi'); // 101 in the group
    clock.advance(2_500);
    const result = await resultOf('sendMessage', { chat_id: GROUP_ID, text: 'hello', message_thread_id: 4 });
    expect(result).toEqual({
      message_id: 102,
      from: api.bot,
      chat: GROUP,
      date: T0 + 2,
      text: 'hello',
      message_thread_id: 4,
      is_topic_message: true,
    });
    expect(api.sent).toEqual([
      { method: 'sendMessage', params: { chat_id: GROUP_ID, text: 'hello', message_thread_id: 4 } },
    ]);
  });

  it('makes up the chat of an id it has not seen: private above zero, a supergroup below', async () => {
    expect(await resultOf('sendMessage', { chat_id: 42, text: 'a' })).toMatchObject({
      chat: { id: 42, type: 'private' },
    });
    expect(await resultOf('sendMessage', { chat_id: -5, text: 'b' })).toMatchObject({
      chat: { id: -5, type: 'supergroup' },
    });
  });

  it('refuses a message without chat_id or text, or longer than 4096 characters, and records no send', async () => {
    const refusals = [
      await call('sendMessage', { text: 'x' }),
      await call('sendMessage', { chat_id: GROUP_ID, text: '  ' }),
      await call('sendMessage', { chat_id: GROUP_ID, text: 'x'.repeat(4097) }),
    ];
    expect(refusals.map((r) => [r.status, r.json.description])).toEqual([
      [400, 'Bad Request: chat_id is empty'],
      [400, 'Bad Request: message text is empty'],
      [400, 'Bad Request: message is too long'],
    ]);
    expect(api.sent).toEqual([]);
  });

  it('edits the text of a message the bot sent, dropping its keyboard unless given again', async () => {
    const keyboard = { inline_keyboard: [[{ text: 'OK', callback_data: 'ok' }]] };
    await call('sendMessage', { chat_id: GROUP_ID, text: 'Pick', reply_markup: keyboard });
    clock.advance(5_000);
    const edited = await resultOf('editMessageText', { chat_id: GROUP_ID, message_id: 101, text: 'Done' });
    expect(edited).toMatchObject({ message_id: 101, text: 'Done', edit_date: T0 + 5 });
    expect(edited).not.toHaveProperty('reply_markup');
    const marked = await resultOf('editMessageReplyMarkup', {
      chat_id: GROUP_ID,
      message_id: 101,
      reply_markup: keyboard,
    });
    expect(marked).toMatchObject({ text: 'Done', reply_markup: keyboard });
    expect(api.sent.map((c) => c.method)).toEqual([
      'sendMessage',
      'editMessageText',
      'editMessageReplyMarkup',
    ]);
  });

  it('refuses to edit a message it does not know, to an empty text, or to the same content', async () => {
    await call('sendMessage', { chat_id: GROUP_ID, text: 'Pick' });
    const refusals = [
      await call('editMessageText', { chat_id: GROUP_ID, message_id: 999, text: 'x' }),
      await call('editMessageText', { chat_id: GROUP_ID, message_id: 101, text: '' }),
      await call('editMessageText', { chat_id: GROUP_ID, message_id: 101, text: 'x'.repeat(4097) }),
      await call('editMessageText', { chat_id: GROUP_ID, message_id: 101, text: 'Pick' }),
    ];
    expect(refusals.map((r) => r.json.description)).toEqual([
      'Bad Request: message to edit not found',
      'Bad Request: message text is empty',
      'Bad Request: message is too long',
      expect.stringMatching(/^Bad Request: message is not modified: /),
    ]);
  });

  it('answers a callback query it delivered, and refuses an id it never sent', async () => {
    const click = api.updates.click('p:c:x.confirm');
    void api.deliver(click);
    expect(await resultOf('answerCallbackQuery', { callback_query_id: click.callback_query.id })).toBe(true);
    expect((await call('answerCallbackQuery', { callback_query_id: 'forged' })).json).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
    });
    expect(api.sent).toHaveLength(1);
  });

  it('refuses the next call of a method as scripted, then answers again', async () => {
    api.failNext('getMe', { error_code: 500, description: 'Internal Server Error' });
    expect((await call('getMe')).status).toBe(500);
    expect((await call('getMe')).status).toBe(200);
  });
});

describe('injected updates', () => {
  it("builds a user's message in the default chat, dated on the clock, numbered per chat", () => {
    const first = api.updates.message('确认');
    const other = api.updates.message('hi', { chat: { id: ALICE.id, type: 'private' }, messageId: 7 });
    const second = api.updates.message('取消', { from: MALLORY, date: T0 + 9, thread: 3 });
    expect(first).toEqual({
      update_id: first.update_id,
      message: { message_id: 101, from: ALICE, chat: GROUP, date: T0, text: '确认' },
    });
    expect([other.message.message_id, second.message.message_id]).toEqual([7, 102]);
    expect(second.message).toMatchObject({ from: MALLORY, date: T0 + 9, message_thread_id: 3 });
    expect(second.update_id).toBeGreaterThan(first.update_id);
  });

  it('gives a text starting with / its bot_command entity, as Telegram does', () => {
    expect(api.updates.message('/purge now').message['entities']).toEqual([
      { type: 'bot_command', offset: 0, length: 6 },
    ]);
    expect(api.updates.message('purge').message).not.toHaveProperty('entities');
  });

  it('builds an edit as a new update carrying the message with its new text and edit_date', () => {
    const original = api.updates.message('取消');
    clock.advance(60_000);
    const edit = api.updates.edit(original, '确认');
    expect(edit).toEqual({
      update_id: original.update_id + 1,
      edited_message: { ...original.message, text: '确认', edit_date: T0 + 60 },
    });
  });

  it("clicks a button of the bot's last card by its label or its data, and sends any other text as data", async () => {
    const keyboard = { inline_keyboard: [[{ text: '确认', callback_data: 'p:c:t.confirm' }]] };
    await call('sendMessage', { chat_id: GROUP_ID, text: 'Sure?', reply_markup: keyboard });
    await call('sendMessage', { chat_id: GROUP_ID, text: 'no buttons here' });
    const byLabel = api.updates.click('确认');
    expect(byLabel.callback_query).toMatchObject({
      from: ALICE,
      data: 'p:c:t.confirm',
      message: { message_id: 101, text: 'Sure?' },
    });
    expect(api.updates.click('p:c:t.confirm').callback_query.data).toBe('p:c:t.confirm');
    expect(api.updates.click('stale').callback_query.data).toBe('stale');
  });

  it('clicks on a message of the bot in the default chat when the bot has sent no card', () => {
    const click = api.updates.click('menu', { from: MALLORY });
    expect(click.callback_query).toMatchObject({
      from: MALLORY,
      data: 'menu',
      message: { from: api.bot, chat: GROUP, message_id: 101 },
    });
  });
});

describe('getUpdates', () => {
  it('keeps an update until an offset above its id confirms it, and only then reports it delivered', async () => {
    let delivered: unknown;
    const delivery = api.message('确认').then((d) => (delivered = d));
    const first = (await resultOf('getUpdates', { offset: 0 })) as { update_id: number }[];
    expect(first).toHaveLength(1);
    expect(await resultOf('getUpdates', { offset: 0 })).toEqual(first); // not confirmed: sent again
    expect(delivered).toBeUndefined();
    const id = first[0]?.update_id ?? 0;
    expect(await resultOf('getUpdates', { offset: id + 1 })).toEqual([]);
    await delivery;
    expect(delivered).toMatchObject({ ok: true, update: { update_id: id } });
  });

  it('answers at most limit updates at once', async () => {
    void api.message('a');
    void api.message('b');
    expect(await resultOf('getUpdates', { limit: 1 })).toHaveLength(1);
    expect(await resultOf('getUpdates', { limit: 0 })).toHaveLength(1); // Telegram's minimum is 1
    expect(await resultOf('getUpdates', {})).toHaveLength(2);
  });

  it('holds a long poll until an update arrives', async () => {
    const poll = resultOf('getUpdates', { offset: 0, timeout: 30 });
    await api.waitFor('getUpdates');
    void api.message('hello');
    expect(await poll).toMatchObject([{ message: { text: 'hello' } }]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('answers a long poll with no updates once its timeout passes on the clock', async () => {
    const poll = resultOf('getUpdates', { offset: 0, timeout: 30 });
    await api.waitFor('getUpdates');
    clock.advance(29_999);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(1);
    expect(await poll).toEqual([]);
  });

  it('answers a held long poll with no updates when a newer poll arrives', async () => {
    const older = resultOf('getUpdates', { timeout: 30 });
    await api.waitFor('getUpdates');
    const newer = resultOf('getUpdates', { timeout: 30 });
    expect(await older).toEqual([]);
    await api.close();
    expect(await newer).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('webhook', () => {
  it('posts each update to the webhook the bot set, with its secret token, and refuses getUpdates meanwhile', async () => {
    const received: { secret: unknown; body: string }[] = [];
    const bot = await serveLoopback((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ secret: req.headers['x-telegram-bot-api-secret-token'], body });
        res.end();
      });
    });
    try {
      expect(await resultOf('setWebhook', { url: `${bot.url}/hook`, secret_token: 's3' })).toBe(true);
      const delivery = await api.message('确认');
      expect(delivery).toMatchObject({ ok: true, update: { message: { text: '确认' } } });
      expect(received).toEqual([{ secret: 's3', body: JSON.stringify(delivery.update) }]);
      expect(await resultOf('getWebhookInfo')).toEqual({
        url: `${bot.url}/hook`,
        has_custom_certificate: false,
        pending_update_count: 0,
      });
      expect((await call('getUpdates')).json).toMatchObject({ ok: false, error_code: 409 });
    } finally {
      await bot.close();
    }
  });

  it('reports a webhook that answers with an error status, or cannot be reached', async () => {
    const bot = await serveLoopback((_req, res) => void res.writeHead(403).end());
    await call('setWebhook', { url: bot.url });
    expect(await api.message('a')).toMatchObject({ ok: false, code: 'webhook_refused', status: 403 });
    await bot.close();
    expect(await api.message('b')).toMatchObject({ ok: false, code: 'webhook_unreachable' });
  });

  it('goes back to getUpdates once the webhook is removed, dropping pending updates when asked', async () => {
    await call('setWebhook', { url: 'http://127.0.0.1:9/hook' });
    await call('setWebhook', { url: '' }); // an empty url removes it too
    void api.message('kept');
    expect(await resultOf('getWebhookInfo')).toMatchObject({ url: '', pending_update_count: 1 });
    await call('deleteWebhook', { drop_pending_updates: true });
    expect(await resultOf('getUpdates')).toEqual([]);
  });
});

describe('close', () => {
  it('ends pending deliveries and waits as closed, and delivers nothing after', async () => {
    const pending = api.message('never fetched');
    const waiting = api.waitFor('sendMessage');
    await api.close();
    expect(await pending).toMatchObject({ ok: false, code: 'closed' });
    const error = await waiting.catch((e: unknown) => e);
    expect(isParleyError(error, 'closed')).toBe(true);
    expect(await api.message('late')).toMatchObject({ ok: false, code: 'closed' });
    expect(isParleyError(await api.waitFor('getMe').catch((e: unknown) => e), 'closed')).toBe(true);
    await api.close(); // closing twice does nothing
  });

  it('resolves a wait for a call already made at once', async () => {
    await call('getMe');
    expect(await api.waitFor('getMe')).toEqual({ method: 'getMe', params: {} });
  });
});
