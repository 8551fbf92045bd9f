import { afterEach, describe, expect, it } from 'vitest';
import { isParleyError } from '@parley/core';
import {
  ALICE,
  BOT,
  CHAT,
  cardEvent,
  encrypted,
  legacyCardCallback,
  MALLORY,
  messageEvent,
  recallEvent,
  signedCard,
} from './events.js';
import { type Bot, startBot } from './harness.js';

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.close();
  await bot?.api.close();
  bot = undefined;
});

async function started(): Promise<Bot> {
  bot = await startBot();
  return bot;
}

describe('received messages', () => {
  it('maps a direct text message with its sender, chat, event id and create_time', async () => {
    const b = await started();
    await b.post(
      '/webhook/event',
      encrypted(
        messageEvent('hello', { at: b.clock.now(), chatType: 'p2p', chatId: 'oc_p2p', eventId: 'ev-1' }),
      ),
    );
    const message = await b.bus.receiveInbound();
    expect(message).toMatchObject({
      channel: 'feishu',
      chatId: 'oc_p2p',
      sessionKey: 'feishu:oc_p2p',
      senderId: ALICE,
      senderIsBot: false,
      fromSelf: false,
      kind: 'message',
      text: 'hello',
      eventId: 'ev-1',
      createdAt: b.clock.now(),
    });
    expect(message.threadId).toBeUndefined();
  });

  it('strips the bot’s mention and spells out other members’ mentions', async () => {
    const b = await started();
    const event = messageEvent('@_user_1 ask @_user_2  now', {
      at: b.clock.now(),
      mentions: [
        { key: '@_user_1', openId: BOT, name: 'Ops bot' },
        { key: '@_user_2', openId: MALLORY, name: 'Mallory' },
      ],
    });
    await b.post('/webhook/event', encrypted(event));
    expect((await b.bus.receiveInbound()).text).toBe('ask @Mallory now');
  });

  it('puts a message of a thread in the thread’s session, keyed by its root message', async () => {
    const b = await started();
    await b.post(
      '/webhook/event',
      encrypted(messageEvent('in topic', { at: b.clock.now(), rootId: 'om_root', threadId: 'omt_1' })),
    );
    expect(await b.bus.receiveInbound()).toMatchObject({
      threadId: 'om_root',
      sessionKey: `feishu:${CHAT}:om_root`,
    });
  });

  it('keeps a quote reply outside a thread in the chat’s session', async () => {
    const b = await started();
    await b.post(
      '/webhook/event',
      encrypted(messageEvent('quoted', { at: b.clock.now(), rootId: 'om_root' })),
    );
    expect((await b.bus.receiveInbound()).threadId).toBeUndefined();
  });

  it('reads the text runs of a rich-text post, with or without a locale key', async () => {
    const b = await started();
    const runs = [
      [
        { tag: 'at', user_id: '@_user_1', user_name: 'Ops bot' },
        { tag: 'text', text: ' 确认' },
      ],
      [{ tag: 'img', image_key: 'img_1' }],
    ];
    const mentions = [{ key: '@_user_1', openId: BOT, name: 'Ops bot' }];
    await b.post(
      '/webhook/event',
      encrypted(
        messageEvent('', {
          at: b.clock.now(),
          type: 'post',
          content: { title: '', content: runs },
          mentions,
        }),
      ),
    );
    await b.post(
      '/webhook/event',
      encrypted(
        messageEvent('', {
          at: b.clock.now(),
          type: 'post',
          content: { zh_cn: { title: 't', content: runs } },
          mentions,
        }),
      ),
    );
    await b.post(
      '/webhook/event',
      encrypted(messageEvent('', { at: b.clock.now(), type: 'post', content: { zh_cn: { title: 't' } } })),
    );
    expect((await b.bus.receiveInbound()).text).toBe('确认');
    expect((await b.bus.receiveInbound()).text).toBe('确认');
    expect((await b.bus.receiveInbound()).text).toBe('');
  });

  it('gives an image (or unreadable content) empty text', async () => {
    const b = await started();
    await b.post(
      '/webhook/event',
      encrypted(messageEvent('', { at: b.clock.now(), type: 'image', content: { image_key: 'img_v2_1' } })),
    );
    const broken = messageEvent('x', { at: b.clock.now() }) as { event: { message: { content: string } } };
    broken.event.message.content = '{not json';
    await b.post('/webhook/event', encrypted(broken));
    expect((await b.bus.receiveInbound()).text).toBe('');
    expect((await b.bus.receiveInbound()).text).toBe('');
  });

  it('marks another app’s message as a bot and the bot’s own as fromSelf (both dropped by hygiene)', async () => {
    const b = await started();
    const drops: string[] = [];
    b.bus.on('intercepted', ({ message }) => drops.push(`${message.senderIsBot}:${message.fromSelf}`));
    await b.post(
      '/webhook/event',
      encrypted(messageEvent('hi', { at: b.clock.now(), sender: 'ou_other_app', senderType: 'app' })),
    );
    await b.post(
      '/webhook/event',
      encrypted(messageEvent('hi', { at: b.clock.now(), sender: BOT, senderType: 'app' })),
    );
    expect(drops).toEqual(['true:false', 'true:true']);
  });

  it('ignores an event without a sender and one without a create_time gets none', async () => {
    const b = await started();
    const noSender = messageEvent('x', { at: b.clock.now() }) as { event: Record<string, unknown> };
    delete noSender.event['sender'];
    await b.post('/webhook/event', encrypted(noSender));
    const noTime = messageEvent('y', { at: b.clock.now() }) as {
      event: { message: Record<string, unknown> };
    };
    delete noTime.event.message['create_time'];
    await b.post('/webhook/event', encrypted(noTime));
    const message = await b.bus.receiveInbound();
    expect(message.text).toBe('y');
    expect(message.createdAt).toBeUndefined();
  });

  it('falls back to the message id when an event has no event id (schema 1.0 bodies carry uuid)', async () => {
    const b = await started();
    const event = messageEvent('x', { at: b.clock.now(), messageId: 'om_x' }) as {
      header: Record<string, unknown>;
    };
    delete event.header['event_id'];
    await b.post('/webhook/event', encrypted(event));
    expect((await b.bus.receiveInbound()).eventId).toBe('message:om_x');
  });
});

describe('recalls and clicks', () => {
  it('maps a recall to kind recall with the remembered sender and thread', async () => {
    const b = await started();
    const seen: string[] = [];
    b.bus.on('intercepted', ({ message }) =>
      seen.push(`${message.kind}:${message.senderId}:${message.threadId}`),
    );
    await b.post(
      '/webhook/event',
      encrypted(
        messageEvent('oops', { at: b.clock.now(), messageId: 'om_t', rootId: 'om_r', threadId: 'omt' }),
      ),
    );
    await b.post('/webhook/event', encrypted(recallEvent('om_t', b.clock.now())));
    await b.post('/webhook/event', encrypted(recallEvent('om_unknown', b.clock.now())));
    expect(seen).toEqual(['recall:ou_alice_2b91:om_r', 'recall:unknown:undefined']);
  });

  it('ignores a recall that names no message', async () => {
    const b = await started();
    const event = recallEvent('om_1', b.clock.now()) as { event: Record<string, unknown> };
    delete event.event['message_id'];
    await b.post('/webhook/event', encrypted(event));
    expect(b.bus.size.inbound).toBe(0);
    expect(b.errors).toEqual([]);
  });

  it('passes a click on a host’s own button to the consumer with its value unwrapped', async () => {
    const b = await started();
    const answer = await b.post(
      '/webhook/event',
      encrypted(cardEvent({ parley_value: 'refresh' }, { messageId: 'om_elsewhere', at: b.clock.now() })),
    );
    expect(answer).toEqual({ toast: { type: 'info', content: '已收到 Received' } });
    expect(await b.bus.receiveInbound()).toMatchObject({
      kind: 'card_action',
      action: 'refresh',
      senderId: ALICE,
      chatId: CHAT,
    });
    await b.post('/webhook/card', signedCard(legacyCardCallback({ a: 1, b: 2 }, { messageId: 'om_x' })));
    expect(await b.bus.receiveInbound()).toMatchObject({
      action: { a: 1, b: 2 },
      eventId: expect.stringMatching(/^card:c-legacy-/),
    });
  });

  it('answers an error toast for a click it could not address', async () => {
    const b = await started();
    const click = cardEvent('x', { messageId: 'om_1', at: b.clock.now() }) as {
      event: Record<string, unknown>;
    };
    delete click.event['operator'];
    expect(await b.post('/webhook/event', encrypted(click))).toMatchObject({ toast: { type: 'error' } });
    const bare = legacyCardCallback(null, { messageId: 'om_1' }) as Record<string, unknown>;
    delete bare['open_chat_id'];
    delete bare['token'];
    expect(await b.post('/webhook/card', signedCard(bare))).toMatchObject({ toast: { type: 'error' } });
  });
});

describe('events the bus cannot take', () => {
  it('unregisters its handlers when detached, and reports an event handed to it while detached', async () => {
    const b = await started();
    await b.bus.close();
    expect(await b.post('/webhook/event', encrypted(messageEvent('late', { at: b.clock.now() })))).toBe(
      'no im.message.receive_v1 event handle',
    );
    await b.adapter.handles['im.message.recalled_v1']({ message_id: 'om_1', chat_id: CHAT });
    expect(b.errors).toHaveLength(1);
    expect(isParleyError(b.errors[0], 'not_delivered')).toBe(true);
  });

  it('reports an event the bus refuses as full', async () => {
    const b = await started();
    for (let i = 0; i < 1001; i++)
      await b.adapter.handles['im.message.receive_v1']({
        event_id: `flood-${i}`,
        sender: { sender_id: { open_id: ALICE }, sender_type: 'user' },
        message: { message_id: `om_${i}`, chat_id: CHAT, message_type: 'text', content: '{"text":"x"}' },
      });
    expect(b.errors.map((error) => error.details['code'])).toEqual(['queue_full']);
  });
});
