// The exported stand-in (@parley/feishu/testing) on its own: what its OpenAPI refuses, in
// Feishu's shapes, and how it delivers events (sealed or plain, subscribed or not).
import * as lark from '@larksuiteoapi/node-sdk';
import { createManualClock, isParleyError } from '@parley/core';
import { createFeishuStandIn, type FeishuStandIn } from '@parley/feishu/testing';
import { type LoopbackEndpoint, sendRequest, serveLoopback } from '@parley/testing/loopback';
import { afterEach, describe, expect, it } from 'vitest';
import { T0 } from './harness.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {}, trace() {} };
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function standIn(options: Parameters<typeof createFeishuStandIn>[0] = {}): Promise<FeishuStandIn> {
  const feishu = await createFeishuStandIn({ clock: createManualClock({ now: T0 }), ...options });
  open.push(feishu);
  return feishu;
}

/** The SDK's client of the stand-in's app, sending to its OpenAPI. */
const clientOf = (feishu: FeishuStandIn): lark.Client =>
  new lark.Client({ appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url, logger: quiet });

async function serve(handler: Parameters<typeof serveLoopback>[0]): Promise<LoopbackEndpoint> {
  const endpoint = await serveLoopback(handler);
  open.push(endpoint);
  return endpoint;
}

const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function tokenOf(feishu: FeishuStandIn): Promise<string> {
  const answer = await sendRequest(
    `${feishu.url}/open-apis/auth/v3/tenant_access_token/internal`,
    json({ app_id: feishu.appId, app_secret: feishu.appSecret }),
  );
  return (JSON.parse(answer.text) as { tenant_access_token: string }).tenant_access_token;
}

describe('the OpenAPI stand-in', () => {
  it('refuses a token request with another app secret (code 10014)', async () => {
    const feishu = await standIn();
    const answer = await sendRequest(
      `${feishu.url}/open-apis/auth/v3/tenant_access_token/internal`,
      json({ app_id: feishu.appId, app_secret: 'guess' }),
    );
    expect([answer.status, JSON.parse(answer.text)]).toEqual([
      400,
      { code: 10014, msg: 'app secret invalid' },
    ]);
  });

  it('refuses a message send without a token, or with a token it did not issue', async () => {
    const feishu = await standIn();
    const url = `${feishu.url}/open-apis/im/v1/messages?receive_id_type=chat_id`;
    const body = { receive_id: feishu.chatId, msg_type: 'text', content: '{"text":"hi"}' };
    const missing = await sendRequest(url, json(body));
    const forged = await sendRequest(url, {
      headers: { ...json(body).headers, authorization: 'Bearer t-forged' },
      body: JSON.stringify(body),
    });
    expect([missing.status, JSON.parse(missing.text).code]).toEqual([400, 99991661]);
    expect([forged.status, JSON.parse(forged.text).code]).toEqual([400, 99991663]);
    expect(feishu.sent).toEqual([]);
    expect(feishu.requests).toHaveLength(2);
  });

  it('refuses a bad receive_id_type, an unknown msg_type and content that is not a JSON object', async () => {
    const feishu = await standIn();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${await tokenOf(feishu)}` };
    const send = async (query: string, body: unknown) => {
      const answer = await sendRequest(`${feishu.url}/open-apis/im/v1/messages${query}`, {
        headers,
        body: JSON.stringify(body),
      });
      return [answer.status, (JSON.parse(answer.text) as { code: number }).code];
    };
    const good = { receive_id: 'oc_1', msg_type: 'text', content: '{"text":"hi"}' };
    expect(await send('?receive_id_type=chat', good)).toEqual([400, 99992402]);
    expect(await send('?receive_id_type=chat_id', { ...good, msg_type: 'telegram' })).toEqual([400, 230001]);
    expect(await send('?receive_id_type=chat_id', { ...good, content: 'hi' })).toEqual([400, 230001]);
    expect(await send('?receive_id_type=chat_id', { ...good, content: '"hi"' })).toEqual([400, 230001]);
    expect(await send('?receive_id_type=chat_id', { ...good, receive_id: '' })).toEqual([400, 230001]);
    expect(await send('?receive_id_type=chat_id', good)).toEqual([200, 0]);
    expect(feishu.sent.map((m) => [m.chatId, m.text, m.createdAt])).toEqual([['oc_1', 'hi', T0]]);
  });

  it('answers a route it does not stand in for with 404', async () => {
    const feishu = await standIn();
    const answer = await sendRequest(`${feishu.url}/open-apis/contact/v3/users`, { method: 'GET' });
    expect([answer.status, JSON.parse(answer.text)]).toEqual([404, { code: 404, msg: '404 page not found' }]);
  });

  it('resolves waitForSent once the message is sent, and shows a card’s text and buttons', async () => {
    const feishu = await standIn();
    const client = clientOf(feishu);
    const waited = feishu.waitForSent(1);
    const card = {
      elements: [
        { tag: 'div', text: { tag: 'plain_text', content: 'Delete?' } },
        {
          tag: 'action',
          actions: [{ tag: 'button', text: { tag: 'plain_text', content: 'Yes' }, value: { v: 1 } }, {}],
        },
      ],
    };
    await client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: 'oc_1', msg_type: 'interactive', content: JSON.stringify(card) },
    });
    await client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: 'oc_1', msg_type: 'sticker', content: '{"file_key":"f"}' },
    });
    expect(await waited).toMatchObject({
      text: 'Delete?',
      buttons: [{ label: 'Yes', value: { v: 1 } }, { label: '' }],
    });
    expect(await feishu.waitForSent(2)).toMatchObject({ msgType: 'sticker', text: '', buttons: [] });
  });
});

describe('replies and clicks', () => {
  it('puts a reply in the chat of the message it answers: one the bot sent, one delivered, or the default', async () => {
    const feishu = await standIn({ clock: undefined });
    const client = clientOf(feishu);
    const bot = await serve(
      lark.adaptDefault(
        '/event',
        new lark.EventDispatcher({ encryptKey: feishu.encryptKey, logger: quiet }),
        { autoChallenge: true },
      ),
    );
    expect(await feishu.subscribe({ events: `${bot.url}/event` })).toEqual({ ok: true });
    await feishu.message('hi', { chatId: 'oc_delivered', messageId: 'om_in' });
    const card = { elements: [{ tag: 'action', actions: [{ text: { content: 'Go' }, value: 'go' }] }] };
    await client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: 'oc_sent', msg_type: 'interactive', content: JSON.stringify(card) },
    });
    const reply = (id: string, content: unknown) =>
      client.im.message.reply({
        path: { message_id: id },
        data: { msg_type: 'text', content: JSON.stringify(content) },
      });
    await reply('om_sent_1', { text: 'a' });
    await reply('om_in', { text: 'b' });
    await reply('om_unknown', { title: 'no text' });
    await client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: 'oc_sent', msg_type: 'interactive', content: '{"elements":"none"}' },
    });
    expect(feishu.sent.map((m) => [m.chatId, m.replyTo, m.text])).toEqual([
      ['oc_sent', undefined, ''],
      ['oc_sent', 'om_sent_1', 'a'],
      ['oc_delivered', 'om_in', 'b'],
      [feishu.chatId, 'om_unknown', ''],
      ['oc_sent', undefined, ''],
    ]);
    expect(feishu.sent[1]?.createdAt).toBeGreaterThan(0); // the system clock by default
    const click = await feishu.click('Go', { messageId: 'om_sent_1' });
    expect(click.status).toBe(200);
  });
});

describe('card updates', () => {
  it('updates a card the bot sent, and refuses to update another message or an unknown one', async () => {
    const feishu = await standIn();
    const client = clientOf(feishu);
    const card = (label: string) => ({
      elements: [{ tag: 'action', actions: [{ text: { content: label }, value: label }] }],
    });
    await client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: 'oc_1', msg_type: 'interactive', content: JSON.stringify(card('Go')) },
    });
    await client.im.message.create({
      params: { receive_id_type: 'chat_id' },
      data: { receive_id: 'oc_1', msg_type: 'text', content: '{"text":"hi"}' },
    });
    const patched = await client.im.message.patch({
      path: { message_id: 'om_sent_1' },
      data: { content: JSON.stringify(card('Done')) },
    });
    expect(patched.code).toBe(0);
    expect(feishu.sent[0]).toMatchObject({ updated: true, buttons: [{ label: 'Done', value: 'Done' }] });
    const refused = async (id: string, content: string) =>
      client.im.message
        .patch({ path: { message_id: id }, data: { content } })
        .catch((error: { response: { status: number; data: { code: number } } }) => [
          error.response.status,
          error.response.data.code,
        ]);
    expect(await refused('om_sent_2', JSON.stringify(card('x')))).toEqual([400, 230001]);
    expect(await refused('om_nope', JSON.stringify(card('x')))).toEqual([400, 230001]);
    expect(await refused('om_sent_1', 'not json')).toEqual([400, 230001]);
    expect(feishu.sent[1]?.updated).toBe(false);
  });
});

describe('event delivery', () => {
  it('refuses to deliver before subscribe, and refuses a URL that does not answer the challenge', async () => {
    const feishu = await standIn();
    expect(() => feishu.message('hi')).toThrow(/subscribe/);
    const deaf = await serve((_req, res) => void res.writeHead(404).end('no'));
    expect(await feishu.subscribe({ events: `${deaf.url}/event` })).toMatchObject({
      ok: false,
      code: 'challenge_failed',
    });
    expect(await feishu.subscribe({ events: 'http://127.0.0.1:1/event' })).toMatchObject({ ok: false });
    let error: unknown;
    try {
      await feishu.event(feishu.cardCallback('x'), { to: 'cards' });
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('sends plain JSON when made without an Encrypt Key, and the token in every header', async () => {
    const feishu = await standIn({ encryptKey: '', verificationToken: 'v-1' });
    const bodies: unknown[] = [];
    const bot = await serve((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk));
      req.on('end', () => {
        const body = JSON.parse(text) as { challenge?: string };
        bodies.push(body);
        res.end(JSON.stringify(body.challenge === undefined ? { ok: 1 } : { challenge: body.challenge }));
      });
    });
    expect(await feishu.subscribe({ events: bot.url })).toEqual({ ok: true });
    const delivery = await feishu.recall('om_1');
    expect(delivery).toMatchObject({ status: 200, answer: { ok: 1 } });
    expect(bodies[1]).toMatchObject({ header: { token: 'v-1', event_type: 'im.message.recalled_v1' } });
    expect((await delivery.redeliver()).eventId).toBe(delivery.eventId);
    expect(bodies[2]).toEqual(bodies[1]);
  });

  it('refuses a click when no card with that button was sent', async () => {
    const feishu = await standIn();
    let error: unknown;
    try {
      await feishu.click('确认');
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('gives the bot’s answer as text when it is not JSON, and undefined when it is empty', async () => {
    const feishu = await standIn({ encryptKey: '' });
    const answers = ['not json', ''];
    const bot = await serve((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk));
      req.on('end', () => {
        const { challenge } = JSON.parse(text) as { challenge?: string };
        res.end(challenge === undefined ? answers.shift() : JSON.stringify({ challenge }));
      });
    });
    expect(await feishu.subscribe({ events: bot.url })).toEqual({ ok: true });
    expect((await feishu.message('hi')).answer).toBe('not json');
    expect((await feishu.message('hi')).answer).toBeUndefined();
  });
});
