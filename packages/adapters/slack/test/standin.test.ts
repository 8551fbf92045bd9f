// The exported Slack stand-in on its own, spoken to over HTTP as the WebClient and Slack do: the
// Web API's shapes and refusals, signed Events API and interactivity requests to a Request URL,
// the payloads it builds, and close().
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createManualClock, isParleyError, type ManualClock } from '@parley/core';
import { sendRequest, serveLoopback } from '@parley/testing/loopback';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSlackStandIn, type SlackStandIn } from '../src/testing.js';
import { ALICE, CHANNEL, MALLORY, T0 } from './helpers.js';

let clock: ManualClock;
let api: SlackStandIn;

/** Calls a Web API method as the WebClient does: a form POST with the bot token. */
async function call(method: string, params: Record<string, string> = {}, token = api.token) {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` };
  const answer = await sendRequest(`${api.url}${method}`, {
    headers,
    body: new URLSearchParams(params).toString(),
  });
  return JSON.parse(answer.text) as Record<string, unknown>;
}

const card = (value: string) =>
  JSON.stringify([
    { type: 'section', text: { type: 'mrkdwn', text: 'Sure?' } },
    {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'parley:0', text: { type: 'plain_text', text: '确认' }, value },
      ],
    },
  ]);

/** The app's side: records each request (headers and body) and answers `status`. */
async function appServer(status = 200) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = await serveLoopback((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  return { received, server };
}

beforeEach(async () => {
  clock = createManualClock({ now: T0 });
  api = await createSlackStandIn({ clock, signingClock: clock, user: ALICE, channel: CHANNEL });
});

afterEach(async () => {
  await api.close();
});

describe('Web API', () => {
  it('answers auth.test with the bot, team and ids', async () => {
    expect(await call('auth.test')).toMatchObject({
      ok: true,
      team_id: api.teamId,
      user_id: api.botUserId,
      bot_id: api.botId,
    });
  });

  it('refuses a wrong token, an app token on a bot method, and an unknown method, as Slack does', async () => {
    expect(await call('auth.test', {}, 'xoxb-wrong')).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await call('auth.test', {}, api.appToken)).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await call('apps.connections.open')).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await call('chat.scheduleMessage')).toEqual({ ok: false, error: 'unknown_method' });
    expect(api.calls('chat.scheduleMessage')).toHaveLength(1);
  });

  it('posts a message with a ts on the clock, unique per post, and records it as sent', async () => {
    const first = await call('chat.postMessage', { channel: CHANNEL, text: 'hi', thread_ts: '1.000001' });
    const second = await call('chat.postMessage', { channel: CHANNEL, text: 'again' });
    expect(first).toMatchObject({
      ok: true,
      channel: CHANNEL,
      ts: '1767225600.000001',
      message: { user: api.botUserId, bot_id: api.botId, text: 'hi', thread_ts: '1.000001' },
    });
    expect(second['ts']).toBe('1767225600.000002');
    expect(api.sent).toEqual([
      { method: 'chat.postMessage', params: { channel: CHANNEL, text: 'hi', thread_ts: '1.000001' } },
      { method: 'chat.postMessage', params: { channel: CHANNEL, text: 'again' } },
    ]);
  });

  it('refuses a post without channel or text, or too long, and records no send', async () => {
    expect(await call('chat.postMessage', { text: 'x' })).toEqual({ ok: false, error: 'channel_not_found' });
    expect(await call('chat.postMessage', { channel: CHANNEL, text: ' ' })).toEqual({
      ok: false,
      error: 'no_text',
    });
    expect(await call('chat.postMessage', { channel: CHANNEL, text: 'x'.repeat(40_001) })).toEqual({
      ok: false,
      error: 'msg_too_long',
    });
    expect(await call('chat.postMessage', { channel: CHANNEL, blocks: card('v') })).toMatchObject({
      ok: true,
    });
    expect(api.sent).toHaveLength(1);
  });

  it('updates a message it posted, and refuses one it does not know', async () => {
    const { ts } = (await call('chat.postMessage', {
      channel: CHANNEL,
      text: 'Pick',
      blocks: card('v'),
    })) as {
      ts: string;
    };
    expect(await call('chat.update', { channel: CHANNEL, ts, text: 'Done' })).toMatchObject({
      ok: true,
      ts,
      text: 'Done',
      message: { text: 'Done' },
    });
    expect(api.payloads.click('确认').actions).toBeDefined();
    expect(await call('chat.update', { channel: CHANNEL, ts: '9.000009', text: 'x' })).toEqual({
      ok: false,
      error: 'message_not_found',
    });
    expect(await call('chat.update', { channel: CHANNEL, ts, text: '' })).toEqual({
      ok: false,
      error: 'no_text',
    });
    expect(api.sent.map((c) => c.method)).toEqual(['chat.postMessage', 'chat.update']);
  });

  it('fails the next call as scripted: an error, a 429 with Retry-After, a 500', async () => {
    api.failNext('auth.test', { error: 'account_inactive' });
    api.failNext('auth.test', { status: 429, retryAfter: 30 });
    api.failNext('auth.test', { status: 500 });
    expect(await call('auth.test')).toEqual({ ok: false, error: 'account_inactive' });
    expect(await call('auth.test')).toEqual({ ok: false, error: 'ratelimited' });
    expect(await call('auth.test')).toEqual({ ok: false });
    expect(await call('auth.test')).toMatchObject({ ok: true });
  });

  it('reshapes the next post answer', async () => {
    api.reshapeNextPost(({ ts: _dropped, ...rest }) => rest);
    expect(await call('chat.postMessage', { channel: CHANNEL, text: 'hi' })).not.toHaveProperty('ts');
  });
});

describe('payloads', () => {
  it("builds a member's message in the default channel with a ts on the clock, counted up", () => {
    const first = api.payloads.message('确认');
    const second = api.payloads.message('hi', { user: MALLORY, channelType: 'im', threadTs: '1.000001' });
    expect(first).toMatchObject({
      type: 'event_callback',
      team_id: api.teamId,
      event_time: T0 / 1000,
      event: { type: 'message', channel: CHANNEL, user: ALICE, text: '确认', ts: '1767225600.000101' },
    });
    expect(second.event).toMatchObject({
      user: MALLORY,
      channel_type: 'im',
      thread_ts: '1.000001',
      ts: '1767225600.000102',
    });
    expect(second.event_id).not.toBe(first.event_id);
  });

  it('builds its mention, edit and deletion, and another bot’s message', () => {
    const message = api.payloads.message('<@U0BOT00001> 确认');
    expect(api.payloads.mention(message).event).toMatchObject({ type: 'app_mention', ts: message.event.ts });
    clock.advance(30_000);
    expect(api.payloads.edit(message, '取消').event).toMatchObject({
      subtype: 'message_changed',
      message: { text: '取消', edited: { user: ALICE } },
      previous_message: { text: '<@U0BOT00001> 确认' },
    });
    expect(api.payloads.delete(message).event).toMatchObject({
      subtype: 'message_deleted',
      deleted_ts: message.event.ts,
    });
    expect(api.payloads.botMessage('x').event).toMatchObject({
      subtype: 'bot_message',
      bot_id: 'B0HELPER01',
    });
  });

  it("clicks a button of the app's last card by label, action_id or value, and sends other text as the value", async () => {
    const posted = await call('chat.postMessage', {
      channel: CHANNEL,
      text: 'Sure?',
      blocks: card('p:token'),
    });
    const byLabel = api.payloads.click('确认', { user: MALLORY });
    expect(byLabel).toMatchObject({
      type: 'block_actions',
      user: { id: MALLORY },
      container: { message_ts: posted['ts'], channel_id: CHANNEL },
      actions: [{ action_id: 'parley:0', value: 'p:token' }],
    });
    expect(api.payloads.click('parley:0')['actions']).toMatchObject([{ value: 'p:token' }]);
    expect(api.payloads.click('stale', { actionId: 'menu' })['actions']).toMatchObject([
      { action_id: 'menu', value: 'stale' },
    ]);
  });
});

describe('delivery', () => {
  it('posts an event signed with the signing secret (v0 HMAC-SHA256 of v0:timestamp:body)', async () => {
    const { received, server } = await appServer();
    try {
      api.setRequestUrl(`${server.url}/slack/events`);
      const delivery = await api.message('确认');
      expect(delivery).toMatchObject({ ok: true, status: 200 });
      const [request] = received;
      const at = String(T0 / 1000);
      const expected = createHmac('sha256', api.signingSecret)
        .update(`v0:${at}:${request?.body}`)
        .digest('hex');
      expect(request?.headers).toMatchObject({
        'content-type': 'application/json',
        'x-slack-request-timestamp': at,
        'x-slack-signature': `v0=${expected}`,
      });
      expect(JSON.parse(request?.body ?? '')).toEqual(delivery.body);
      expect(api.sign('x', { at: 1 })).toEqual({
        'x-slack-request-timestamp': '1',
        'x-slack-signature': `v0=${createHmac('sha256', api.signingSecret).update('v0:1:x').digest('hex')}`,
      });
    } finally {
      await server.close();
    }
  });

  it("posts a click as a form's payload, and a redelivery with Slack's retry headers", async () => {
    const { received, server } = await appServer();
    try {
      api.setRequestUrl(server.url);
      await api.click('x');
      const body = api.payloads.message('hi');
      await api.deliver(body, { retry: 2 });
      expect(received[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(JSON.parse(new URLSearchParams(received[0]?.body).get('payload') ?? '')).toMatchObject({
        type: 'block_actions',
      });
      expect(received[1]?.headers).toMatchObject({
        'x-slack-retry-num': '2',
        'x-slack-retry-reason': 'http_timeout',
      });
    } finally {
      await server.close();
    }
  });

  it('reports the status an app refuses with (401 for another signing secret), and an app it cannot reach', async () => {
    const { server } = await appServer(401);
    api.setRequestUrl(server.url);
    const forged = await api.interact(api.payloads.click('x'), { signingSecret: 'not-the-secret' });
    expect(forged).toMatchObject({ ok: false, code: 'request_refused', status: 401 });
    await server.close();
    expect(await api.deliver(api.payloads.message('b'))).toMatchObject({
      ok: false,
      code: 'request_unreachable',
    });
  });

  it('delivers nothing without a Request URL or a Socket Mode connection', async () => {
    expect(await api.message('hello')).toMatchObject({ ok: false, code: 'not_connected' });
  });
});

describe('close', () => {
  it('ends waits as closed and delivers nothing after', async () => {
    const waiting = api.waitFor('chat.postMessage');
    await api.close();
    expect(isParleyError(await waiting.catch((e: unknown) => e), 'closed')).toBe(true);
    expect(isParleyError(await api.waitFor('auth.test').catch((e: unknown) => e), 'closed')).toBe(true);
    expect(await api.message('late')).toMatchObject({ ok: false, code: 'closed' });
    await api.close(); // closing twice does nothing
  });

  it('resolves a wait for a call already made at once', async () => {
    await call('auth.test');
    expect(await api.waitFor('auth.test')).toEqual({ method: 'auth.test', params: {} });
  });
});
