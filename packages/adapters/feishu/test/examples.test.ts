// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/feishu, compiled and run; each console.log is an assertion here.
import * as lark from '@larksuiteoapi/node-sdk';
import { createMessageBus } from '@parley/bus';
import { createManualClock, isParleyError } from '@parley/core';
import {
  createFeishuStandIn,
  type FeishuDelivery,
  type FeishuSentMessage,
  type FeishuStandIn,
  type FeishuStandInCardOptions,
  type FeishuStandInClickOptions,
  type FeishuStandInFault,
  type FeishuStandInMessageOptions,
  type FeishuStandInOptions,
  type FeishuStandInRecallOptions,
  type FeishuStandInRequest,
  type FeishuSubscribeResult,
  type FeishuSubscription,
} from '@parley/feishu/testing';
import { serveLoopback } from '@parley/testing/loopback';
import { describe, expect, it } from 'vitest';
import {
  createFeishuAdapter,
  FEISHU_CARD_MAX_BYTES,
  FEISHU_ERROR_CODES,
  FEISHU_TEXT_MAX_BYTES,
  type FeishuAdapter,
  type FeishuApiAnswer,
  type FeishuAdapterOptions,
  type FeishuCardAction,
  type FeishuCardResponse,
  type FeishuClient,
  type FeishuDispatcher,
  FeishuAdapterError,
  FeishuError,
  type FeishuErrorCode,
  type FeishuEventHandles,
  type FeishuMessageBody,
  type FeishuMessageEvent,
  type FeishuRecallEvent,
  type FeishuUserId,
  toFeishuMessage,
} from '../src/index.js';

describe('errors.ts examples', () => {
  it('FEISHU_ERROR_CODES', () => {
    expect(FEISHU_ERROR_CODES.includes('rate_limited')).toBe(true);
  });
  it('FeishuErrorCode', () => {
    const code: FeishuErrorCode = 'payload_too_large';
    expect(code).toBe('payload_too_large');
  });
  it('FeishuAdapterError', () => {
    const err = new FeishuAdapterError('rate_limited', 'Slow down', { details: { retryAfterMs: 1000 } });
    expect([isParleyError(err, 'rate_limited'), err.details['retryAfterMs']]).toEqual([true, 1000]);
  });
});

describe('inbound.ts examples', () => {
  it('FeishuMessageEvent', () => {
    const event: FeishuMessageEvent = {
      event_id: '5e3702a84e847582be8db7fb73283c02',
      sender: { sender_id: { open_id: 'ou_alice' }, sender_type: 'user' },
      message: {
        message_id: 'om_1',
        chat_id: 'oc_ops',
        chat_type: 'group',
        message_type: 'text',
        create_time: '1767225605000',
        content: '{"text":"@_user_1 确认"}',
        mentions: [{ key: '@_user_1', id: { open_id: 'ou_bot' }, name: 'Ops bot' }],
      },
    };
    expect(event.message?.chat_id).toBe('oc_ops');
  });
  it('FeishuRecallEvent', () => {
    const event: FeishuRecallEvent = {
      event_id: 'ev_9',
      message_id: 'om_1',
      chat_id: 'oc_ops',
      recall_time: '1767225609000',
    };
    expect(event.message_id).toBe('om_1');
  });
  it('FeishuCardAction', () => {
    const click: FeishuCardAction = {
      event_id: 'ev_2',
      operator: { open_id: 'ou_alice' },
      action: { tag: 'button', value: { confirmation: 'cfm_1.confirm' } },
      context: { open_message_id: 'om_5', open_chat_id: 'oc_ops' },
    };
    expect(click.operator?.open_id).toBe('ou_alice');
  });
});

describe('inbound.ts FeishuUserId example', () => {
  it('FeishuUserId', () => {
    const id: FeishuUserId = { open_id: 'ou_alice', user_id: 'u_alice', union_id: 'on_alice' };
    expect(id.open_id).toBe('ou_alice');
  });
});

describe('outbound.ts examples', () => {
  it('FEISHU_CARD_MAX_BYTES', () => {
    expect(FEISHU_CARD_MAX_BYTES).toBe(30720);
  });
  it('FEISHU_TEXT_MAX_BYTES', () => {
    expect(FEISHU_TEXT_MAX_BYTES).toBe(153600);
  });
  it('FeishuMessageBody', () => {
    const body: FeishuMessageBody = { msg_type: 'text', content: '{"text":"Done."}' };
    expect(body.msg_type).toBe('text');
  });
  it('toFeishuMessage', () => {
    const body = toFeishuMessage({
      channel: 'feishu',
      chatId: 'oc_ops',
      sessionKey: 'feishu:oc_ops',
      createdAt: 0,
      text: '以下操作需要确认',
      card: { title: 'Confirm', buttons: [{ label: '确认', value: { confirmation: 'cfm_1.confirm' } }] },
    });
    expect(body.msg_type).toBe('interactive');
  });
});

describe('types.ts examples', () => {
  it('FeishuApiAnswer', () => {
    const answer: FeishuApiAnswer = { code: 0, msg: 'success', data: { message_id: 'om_1' } };
    expect(answer.code).toBe(0);
  });
  it('FeishuClient', () => {
    const client: FeishuClient = {
      im: {
        message: {
          create: async () => ({ code: 0, data: { message_id: 'om_1', create_time: '1767225600000' } }),
          reply: async () => ({ code: 0, data: { message_id: 'om_2', create_time: '1767225600000' } }),
        },
      },
    };
    expect(typeof client.im.message.create).toBe('function');
  });
  it('FeishuDispatcher', () => {
    const handles = new Map<string, unknown>();
    const dispatcher: FeishuDispatcher = {
      register: (h) => {
        for (const [k, v] of Object.entries(h)) handles.set(k, v);
      },
    };
    dispatcher.register(createFeishuAdapter({ client: {} as FeishuClient, botOpenId: 'ou_bot' }).handles);
    expect(handles.size).toBe(3);
  });
  it('FeishuEventHandles', () => {
    const keys: (keyof FeishuEventHandles)[] = [
      'im.message.receive_v1',
      'im.message.recalled_v1',
      'card.action.trigger',
    ];
    expect(keys).toHaveLength(3);
  });
  it('FeishuCardResponse', () => {
    const answer: FeishuCardResponse = { toast: { type: 'success', content: '已确认' } };
    expect(answer.toast?.type).toBe('success');
  });
  it('FeishuAdapterOptions', () => {
    const client = new lark.Client({ appId: 'cli_example', appSecret: 'secret' }); // sends nothing yet
    const options: FeishuAdapterOptions = { client, botOpenId: 'ou_bot', maxRememberedMessages: 500 };
    expect(options.maxRememberedMessages).toBe(500);
  });
  it('FeishuAdapter', () => {
    function channelOf(adapter: FeishuAdapter): string {
      return adapter.channel;
    }
    expect(channelOf(createFeishuAdapter({ client: {} as FeishuClient, botOpenId: 'ou_bot' }))).toBe(
      'feishu',
    );
  });
});

describe('adapter.ts examples', () => {
  it('createFeishuAdapter', async () => {
    const sent: string[] = [];
    const client: FeishuClient = {
      im: {
        message: {
          async create({ data }) {
            sent.push(data.content);
            return { code: 0, data: { message_id: 'om_9', create_time: '1767225600000' } };
          },
          reply: async () => ({ code: 0, data: {} }),
        },
      },
    };
    const adapter = createFeishuAdapter({ client, botOpenId: 'ou_bot' });
    const bus = createMessageBus();
    await bus.attach(adapter);
    await adapter.handles['im.message.receive_v1']({
      event_id: 'ev_1',
      sender: { sender_id: { open_id: 'ou_alice' }, sender_type: 'user' },
      message: {
        message_id: 'om_1',
        chat_id: 'oc_ops',
        chat_type: 'group',
        message_type: 'text',
        create_time: '1767225605000',
        content: '{"text":"@_user_1 hello"}',
        mentions: [{ key: '@_user_1', id: { open_id: 'ou_bot' }, name: 'Bot' }],
      },
    });
    expect((await bus.receiveInbound()).text).toBe('hello');
    const result = await bus.publishOutbound({ channel: 'feishu', chatId: 'oc_ops', text: 'hi' });
    expect([result.status, sent]).toEqual(['sent', ['{"text":"hi"}']]);
    await bus.close();
  });
});

describe('testing.ts (@parley/feishu/testing) examples', () => {
  it('FeishuStandInOptions, FeishuSubscription and the injector options', () => {
    const options: FeishuStandInOptions = {
      clock: createManualClock({ now: 1_767_225_600_000 }),
      chatId: 'oc_ops',
    };
    const urls: FeishuSubscription = {
      events: 'http://127.0.0.1:3000/webhook/event',
      cards: 'http://127.0.0.1:3000/webhook/card',
    };
    const reply: FeishuStandInMessageOptions = {
      sender: 'ou_alice',
      mentionBot: true,
      rootId: 'om_root',
      threadId: 'omt_1',
    };
    const recall: FeishuStandInRecallOptions = { chatId: 'oc_ops' };
    const click: FeishuStandInCardOptions = { messageId: 'om_sent_1', user: 'ou_alice' };
    const forged: FeishuStandInClickOptions = {
      user: 'ou_mallory',
      value: { confirmation: 'cfm_1.confirm.x' },
    };
    expect([options.chatId, urls.cards, reply.mentionBot, recall.chatId, click.user, forged.user]).toEqual([
      'oc_ops',
      'http://127.0.0.1:3000/webhook/card',
      true,
      'oc_ops',
      'ou_alice',
      'ou_mallory',
    ]);
  });

  it('FeishuSentMessage, FeishuStandInRequest, FeishuStandInFault, FeishuDelivery, FeishuSubscribeResult', () => {
    const labels = (message: FeishuSentMessage): string[] => message.buttons.map((b) => b.label);
    const isToken = (request: FeishuStandInRequest): boolean =>
      request.path.endsWith('/tenant_access_token/internal');
    const limited: FeishuStandInFault = {
      status: 429,
      body: { code: 99991400, msg: 'request trigger frequency limit' },
      headers: { 'x-ogw-ratelimit-reset': '3' },
    };
    const accepted = (delivery: FeishuDelivery): boolean => delivery.status === 200;
    const result: FeishuSubscribeResult = { ok: false, code: 'challenge_failed', message: 'answered 404' };
    expect(typeof labels).toBe('function');
    expect(
      isToken({
        method: 'POST',
        path: '/open-apis/auth/v3/tenant_access_token/internal',
        query: {},
        authorization: undefined,
        body: {},
      }),
    ).toBe(true);
    expect(limited.status).toBe(429);
    expect(
      accepted({
        eventId: 'e',
        status: 200,
        answer: undefined,
        redeliver: async () => {
          throw new Error('unused');
        },
      }),
    ).toBe(true);
    expect(result.ok).toBe(false);
  });

  it('FeishuStandIn', async () => {
    const feishu: FeishuStandIn = await createFeishuStandIn();
    expect([feishu.url.startsWith('http://127.0.0.1:'), feishu.sent.length]).toEqual([true, 0]);
    await feishu.close();
  });

  it('createFeishuStandIn', async () => {
    const feishu = await createFeishuStandIn();
    const client = new lark.Client({ appId: feishu.appId, appSecret: feishu.appSecret, domain: feishu.url });
    const dispatcher = new lark.EventDispatcher({ encryptKey: feishu.encryptKey }).register({
      'im.message.receive_v1': async ({ message }) => {
        const { text } = JSON.parse(message.content) as { text: string };
        await client.im.message.create({
          params: { receive_id_type: 'chat_id' },
          data: {
            receive_id: message.chat_id,
            msg_type: 'text',
            content: JSON.stringify({ text: text.toUpperCase() }),
          },
        });
      },
    });
    const bot = await serveLoopback(lark.adaptDefault('/event', dispatcher, { autoChallenge: true }));
    expect(await feishu.subscribe({ events: `${bot.url}/event` })).toEqual({ ok: true });
    await feishu.message('hello');
    expect((await feishu.waitForSent()).text).toBe('HELLO');
    await bot.close();
    await feishu.close();
  });

  it('FeishuError (deprecated alias)', () => {
    expect(FeishuError).toBe(FeishuAdapterError);
    expect(new FeishuError('rate_limited', 'Slow down')).toBeInstanceOf(FeishuAdapterError);
  });
});
