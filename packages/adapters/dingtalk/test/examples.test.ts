// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/dingtalk, compiled and run; each console.log is an assertion here.
// A `declare const client` of an example is a real, unconnected DWClient here.
import { createManualClock, isParleyError } from '@parley/core';
import {
  createDingTalkStandIn,
  type DingTalkAck,
  type DingTalkPush,
  type DingTalkSentMessage,
  type DingTalkStandIn,
  type DingTalkStandInCardOptions,
  type DingTalkStandInClickOptions,
  type DingTalkStandInFault,
  type DingTalkStandInMessageOptions,
  type DingTalkStandInOptions,
  type DingTalkStandInRequest,
} from '@parley/dingtalk/testing';
import { DWClient, TOPIC_ROBOT } from 'dingtalk-stream';
import { describe, expect, it, vi } from 'vitest';
import {
  createDingTalkAdapter,
  DINGTALK_ERROR_CODES,
  type DingTalkAdapterOptions,
  type DingTalkCardCallback,
  DingTalkAdapterError,
  DingTalkError,
  type DingTalkErrorCode,
  type DingTalkRobotBody,
  type DingTalkRobotMessage,
  type DingTalkStreamClient,
  type DingTalkStreamFrame,
  toCardParams,
  toRobotMessage,
} from '../src/index.js';

const client: DingTalkStreamClient = new DWClient({ clientId: 'dingexample', clientSecret: 'secret' });

describe('errors.ts examples', () => {
  it('DINGTALK_ERROR_CODES', () => {
    expect(DINGTALK_ERROR_CODES.includes('rate_limited')).toBe(true);
  });
  it('DingTalkErrorCode', () => {
    const code: DingTalkErrorCode = 'not_delivered';
    expect(code).toBe('not_delivered');
  });
  it('DingTalkAdapterError', () => {
    const err = new DingTalkAdapterError('rate_limited', 'Slow down', { details: { retryAfterMs: 1000 } });
    expect([isParleyError(err, 'rate_limited'), err.details['retryAfterMs']]).toEqual([true, 1000]);
  });
});

describe('inbound.ts examples', () => {
  it('DingTalkRobotMessage', () => {
    const message: DingTalkRobotMessage = {
      conversationId: 'cidQ9bCw8YyUu6Hc1Aq==',
      conversationType: '2',
      msgId: 'msgIuJMq3a1Q==',
      msgtype: 'text',
      text: { content: ' 确认' },
      senderStaffId: 'manager4521',
      senderId: '$:LWCP_v1:$abc',
      chatbotUserId: '$:LWCP_v1:$bot',
      createAt: 1767225605000,
      robotCode: 'dingbot123',
    };
    expect(message.conversationType).toBe('2');
  });
  it('DingTalkCardCallback', () => {
    const click: DingTalkCardCallback = {
      outTrackId: 'parley_V1StGXR8',
      userId: 'manager4521',
      spaceType: 'IM_GROUP',
      spaceId: 'cidQ9bCw8YyUu6Hc1Aq==',
      content:
        '{"cardPrivateData":{"actionIds":["confirm"],"params":{"value":"{\\"confirmation\\":\\"cfm_1.confirm\\"}"}}}',
    };
    expect(click.userId).toBe('manager4521');
  });
});

describe('outbound.ts examples', () => {
  it('DingTalkRobotBody', () => {
    const body: DingTalkRobotBody = { msgKey: 'sampleText', msgParam: '{"content":"Done."}' };
    expect(body.msgKey).toBe('sampleText');
  });
  it('toRobotMessage', () => {
    const body = toRobotMessage({
      channel: 'dingtalk',
      chatId: 'cid1',
      sessionKey: 'dingtalk:cid1',
      createdAt: 0,
      text: 'Done.',
    });
    expect([body.msgKey, body.msgParam]).toEqual(['sampleText', '{"content":"Done."}']);
  });
  it('toCardParams', () => {
    const params = toCardParams({
      channel: 'dingtalk',
      chatId: 'cid1',
      sessionKey: 'dingtalk:cid1',
      createdAt: 0,
      text: '以下操作需要确认',
      card: {
        title: 'Confirm',
        buttons: [{ label: '确认', value: { confirmation: 'cfm_1.confirm' }, style: 'danger' }],
      },
    });
    expect(JSON.parse(params['buttons'] as string)[0].value).toBe('{"confirmation":"cfm_1.confirm"}');
  });
});

describe('adapter.ts examples', () => {
  it('DingTalkStreamFrame', () => {
    const frame: DingTalkStreamFrame = {
      headers: { messageId: 'a1b2c3d4-5e6f', topic: '/v1.0/im/bot/messages/get' },
      data: '{"conversationId":"cid1","msgId":"m1","msgtype":"text","text":{"content":"hi"},"senderStaffId":"u1"}',
    };
    expect(frame.headers.topic).toBe('/v1.0/im/bot/messages/get');
  });
  it('DingTalkStreamClient', () => {
    function describe(c: DingTalkStreamClient): string {
      return c.getConfig().clientId;
    }
    expect(describe(client)).toBe('dingexample');
  });
  it('DingTalkAdapterOptions', () => {
    const options: DingTalkAdapterOptions = { client, robotCode: 'dingbot123', botName: 'Ops bot' };
    expect(options.botName).toBe('Ops bot');
  });
  it('createDingTalkAdapter', () => {
    const adapter = createDingTalkAdapter({ client, robotCode: 'dingbot123' });
    expect(adapter.channel).toBe('dingtalk');
  });
});

describe('testing.ts (@parley/dingtalk/testing) examples', () => {
  it('the option types', () => {
    const options: DingTalkStandInOptions = {
      clock: createManualClock({ now: 1_767_225_600_000 }),
      userId: 'manager4521',
    };
    const direct: DingTalkStandInMessageOptions = { sender: 'manager4521', conversationType: '1' };
    const click: DingTalkStandInCardOptions = { user: 'staff0666', outTrackId: 'parley_1' };
    const forged: DingTalkStandInClickOptions = {
      user: 'staff0666',
      value: '{"confirmation":"cfm_1.confirm.x"}',
    };
    const limited: DingTalkStandInFault = {
      status: 403,
      body: { code: 'Forbidden.AccessDenied.QpsLimitForApi', message: 'qps limit' },
    };
    expect([options.userId, direct.conversationType, click.outTrackId, forged.user, limited.status]).toEqual([
      'manager4521',
      '1',
      'parley_1',
      'staff0666',
      403,
    ]);
  });

  it('DingTalkAck, DingTalkPush, DingTalkSentMessage, DingTalkStandInRequest', () => {
    const ok = (ack: DingTalkAck): boolean => ack.code === 200;
    const twice = async (push: DingTalkPush): Promise<void> => void (await push.redeliver().acked);
    const labels = (message: DingTalkSentMessage): string[] => message.buttons.map((b) => b.label);
    const isGateway = (request: DingTalkStandInRequest): boolean =>
      request.path === '/v1.0/gateway/connections/open';
    expect(ok({ code: 200, headers: { messageId: 'm' }, data: '' })).toBe(true);
    expect(typeof twice).toBe('function');
    expect(typeof labels).toBe('function');
    expect(isGateway({ path: '/v1.0/gateway/connections/open', token: undefined, body: {} })).toBe(true);
  });

  it('DingTalkStandIn', async () => {
    const dingtalk: DingTalkStandIn = await createDingTalkStandIn();
    expect([dingtalk.url.startsWith('http://127.0.0.1:'), dingtalk.connections]).toEqual([true, 0]);
    await dingtalk.close();
  });

  it('createDingTalkStandIn', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined); // DWClient announces each connect
    try {
      const dingtalk = await createDingTalkStandIn();
      const client = new DWClient({ clientId: dingtalk.clientId, clientSecret: dingtalk.clientSecret });
      const heard: string[] = [];
      client.registerCallbackListener(TOPIC_ROBOT, (frame) => {
        heard.push((JSON.parse(frame.data) as { text: { content: string } }).text.content);
        client.socketCallBackResponse(frame.headers.messageId, {});
      });
      await client.connect();
      await dingtalk.connected();
      expect([(await dingtalk.message('hello').acked).code, heard]).toEqual([200, ['hello']]);
      client.disconnect();
      await dingtalk.close();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('DingTalkError (deprecated alias)', () => {
    expect(DingTalkError).toBe(DingTalkAdapterError);
    expect(new DingTalkError('rate_limited', 'Slow down')).toBeInstanceOf(DingTalkAdapterError);
  });
});
