// The exported stand-in (@parley/dingtalk/testing) on its own: what its gateway, token endpoint,
// OpenAPI and stream socket refuse, in DingTalk's shapes, and what it records.
import { createManualClock, isParleyError } from '@parley/core';
import { createDingTalkStandIn, type DingTalkStandIn } from '@parley/dingtalk/testing';
import { sendRequest } from '@parley/testing/loopback';
import axios from 'axios';
import { DWClient, GATEWAY_URL, TOPIC_ROBOT } from 'dingtalk-stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { T0 } from './harness.js';

const open: DingTalkStandIn[] = [];
afterEach(async () => {
  for (const standIn of open.splice(0)) await standIn.close();
  vi.restoreAllMocks();
});

async function standIn(options: Parameters<typeof createDingTalkStandIn>[0] = {}): Promise<DingTalkStandIn> {
  const dingtalk = await createDingTalkStandIn({ clock: createManualClock({ now: T0 }), ...options });
  open.push(dingtalk);
  return dingtalk;
}

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const answer = await sendRequest(url, {
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return [answer.status, JSON.parse(answer.text) as Record<string, unknown>] as const;
};

describe('the gateway and the stream socket', () => {
  it('refuses connections/open with another client secret (401)', async () => {
    const dingtalk = await standIn();
    const [status, body] = await post(`${dingtalk.url}/v1.0/gateway/connections/open`, {
      clientId: dingtalk.clientId,
      clientSecret: 'guess',
    });
    expect([status, body['code']]).toEqual([401, 'InvalidAuthentication']);
    expect(dingtalk.gateway).toHaveLength(1);
  });

  it('refuses a WebSocket upgrade without a ticket it handed out, and a ticket used twice', async () => {
    const dingtalk = await standIn();
    const [, opened] = await post(`${dingtalk.url}/v1.0/gateway/connections/open`, {
      clientId: dingtalk.clientId,
      clientSecret: dingtalk.clientSecret,
    });
    const upgrade = (ticket: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`${String(opened['endpoint'])}?ticket=${ticket}`);
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      });
    expect(await upgrade('forged')).toBe(401);
    expect(await upgrade(String(opened['ticket']))).toBe(101);
    expect(await upgrade(String(opened['ticket']))).toBe(401);
  });

  it('leaves the gateway request alone when told not to intercept it, and stops intercepting once closed', async () => {
    const seen: string[] = [];
    const spy = axios.interceptors.request.use((config) => {
      seen.push(String(config.url));
      throw new Error('not sent');
    });
    try {
      const own = await standIn({ interceptGateway: false });
      const client = new DWClient({ clientId: own.clientId, clientSecret: own.clientSecret });
      await expect(client.getEndpoint()).rejects.toThrow();
      const routed = await standIn();
      await routed.close();
      await expect(client.getEndpoint()).rejects.toThrow();
      expect(seen).toEqual([GATEWAY_URL, GATEWAY_URL]);
    } finally {
      axios.interceptors.request.eject(spy);
    }
  });
});

describe('the OpenAPI', () => {
  it('refuses a token request with another app secret, and a send without its access token', async () => {
    const dingtalk = await standIn();
    const [status, body] = await post(`${dingtalk.url}/v1.0/oauth2/accessToken`, {
      appKey: dingtalk.clientId,
      appSecret: 'guess',
    });
    expect([status, body['code']]).toEqual([400, 'invalidClientId']);
    const send = {
      robotCode: dingtalk.clientId,
      openConversationId: 'cid1',
      msgKey: 'sampleText',
      msgParam: '{}',
    };
    const [missing] = await post(`${dingtalk.url}/v1.0/robot/groupMessages/send`, send);
    const [forged] = await post(`${dingtalk.url}/v1.0/robot/groupMessages/send`, send, {
      'x-acs-dingtalk-access-token': 'forged',
    });
    expect([missing, forged]).toEqual([401, 401]);
    expect(dingtalk.sent).toEqual([]);
  });

  it('answers a route it does not stand in for with 404', async () => {
    const dingtalk = await standIn();
    const [status, body] = await post(
      `${dingtalk.url}/v1.0/contact/users/me`,
      {},
      {
        'x-acs-dingtalk-access-token': dingtalk.accessToken,
      },
    );
    expect([status, body]).toEqual([404, { code: 'NotFound', message: 'no such API' }]);
  });

  it('records markdown and cards with their text and buttons, and reads malformed ones as empty', async () => {
    const dingtalk = await standIn();
    const token = { 'x-acs-dingtalk-access-token': dingtalk.accessToken };
    const waited = dingtalk.waitForSent(2);
    await post(
      `${dingtalk.url}/v1.0/robot/oToMessages/batchSend`,
      {
        userIds: ['u1', 7],
        msgKey: 'sampleMarkdown',
        msgParam: '{"title":"t","text":"**hi**"}',
      },
      token,
    );
    await post(
      `${dingtalk.url}/v1.0/card/instances/createAndDeliver`,
      {
        outTrackId: 'o1',
        openSpaceId: 'dtv1.card//IM_GROUP.cidG==',
        cardData: { cardParamMap: { text: 'Go?', buttons: '[{"label":"Go","value":"\\"go\\""},{}]' } },
      },
      token,
    );
    await post(
      `${dingtalk.url}/v1.0/card/instances/createAndDeliver`,
      { cardData: { cardParamMap: { buttons: '{oops' } } },
      token,
    );
    await post(`${dingtalk.url}/v1.0/card/instances/createAndDeliver`, {}, token);
    await post(
      `${dingtalk.url}/v1.0/card/instances/createAndDeliver`,
      { cardData: { cardParamMap: { buttons: '[null]' } } },
      token,
    );
    await post(
      `${dingtalk.url}/v1.0/card/instances/createAndDeliver`,
      { cardData: { cardParamMap: { buttons: '{"a":1}' } } },
      token,
    );
    await post(`${dingtalk.url}/v1.0/robot/groupMessages/send`, { msgParam: '{oops' }, token);
    expect(await waited).toMatchObject({
      kind: 'card',
      conversationId: 'cidG==',
      outTrackId: 'o1',
      text: 'Go?',
    });
    expect(dingtalk.sent.map((m) => [m.kind, m.text, m.userIds, m.buttons.map((b) => b.label)])).toEqual([
      ['direct', '**hi**', ['u1'], []],
      ['card', 'Go?', [], ['Go', '']],
      ['card', '', [], []],
      ['card', '', [], []],
      ['card', '', [], ['']],
      ['card', '', [], []],
      ['group', '', [], []],
    ]);
    expect(await dingtalk.waitForSent(1)).toBe(dingtalk.sent[0]);
    dingtalk.failToken({ status: 500, body: 'down', raw: true });
    const answer = await sendRequest(`${dingtalk.url}/v1.0/oauth2/accessToken`, { body: '{}' });
    expect([answer.status, answer.text]).toEqual([500, 'down']);
    dingtalk.failToken(undefined);
  });
});

describe('pushes and clicks', () => {
  it('refuses a click when no card with that button was sent', async () => {
    const dingtalk = await standIn();
    let error: unknown;
    try {
      dingtalk.click('确认');
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
    expect(dingtalk.cardCallback({ value: '1' })).toMatchObject({ outTrackId: '', userId: 'staff_standin' });
    expect(dingtalk.cardCallback({}, { outTrackId: 'o9', user: 'u9' })).toMatchObject({
      outTrackId: 'o9',
      userId: 'u9',
    });
  });

  it('pushes frames stamped by its clock to a connected DWClient, which acknowledges them', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined); // DWClient announces each connect
    const dingtalk = await standIn({ clock: undefined });
    const client = new DWClient({ clientId: dingtalk.clientId, clientSecret: dingtalk.clientSecret });
    client.config.autoReconnect = false;
    const frames: { time: string; data: string }[] = [];
    client.registerCallbackListener(TOPIC_ROBOT, (frame) => {
      frames.push({ time: frame.headers.time, data: frame.data });
      client.socketCallBackResponse(frame.headers.messageId, {});
    });
    await client.connect();
    await dingtalk.connected();
    const push = dingtalk.message('hi', { conversationType: '1' });
    expect((await push.acked).headers.messageId).toBe(push.messageId);
    expect((await push.redeliver().acked).headers.messageId).toBe(push.messageId);
    expect(JSON.parse(frames[0]?.data ?? '{}')).toMatchObject({
      conversationType: '1',
      text: { content: 'hi' },
    });
    expect(Number(frames[0]?.time)).toBeGreaterThan(0); // the system clock by default
    const closed = dingtalk.disconnected();
    client.disconnect();
    await closed;
    expect(dingtalk.connections).toBe(0);
  });
});
