import { afterEach, describe, expect, it } from 'vitest';
import { isParleyError } from '@parley/core';
import { ALICE, BOT, type Bot, CHAT, MALLORY, startBot } from './harness.js';

let bot: Bot | undefined;
afterEach(async () => {
  await bot?.close();
  await bot?.feishu.close();
  bot = undefined;
});

/** Subscribes the bot's card URL too and posts an older card callback there; the bot's answer. */
async function cards(b: Bot, body: Record<string, unknown>): Promise<unknown> {
  await b.feishu.subscribe({ events: b.eventsUrl, cards: b.cardsUrl });
  return (await b.feishu.event(body, { to: 'cards' })).answer;
}

async function started(): Promise<Bot> {
  bot = await startBot();
  return bot;
}

describe('received messages', () => {
  it('maps a direct text message with its sender, chat, event id and create_time', async () => {
    const b = await started();
    await b.feishu.event(
      b.feishu.messageEvent('hello', { chatType: 'p2p', chatId: 'oc_p2p', eventId: 'ev-1' }),
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
    const event = b.feishu.messageEvent('@_user_1 ask @_user_2  now', {
      mentions: [
        { key: '@_user_1', openId: BOT, name: 'Ops bot' },
        { key: '@_user_2', openId: MALLORY, name: 'Mallory' },
      ],
    });
    await b.feishu.event(event);
    expect((await b.bus.receiveInbound()).text).toBe('ask @Mallory now');
  });

  it('puts a message of a thread in the thread’s session, keyed by its root message', async () => {
    const b = await started();
    await b.feishu.event(b.feishu.messageEvent('in topic', { rootId: 'om_root', threadId: 'omt_1' }));
    expect(await b.bus.receiveInbound()).toMatchObject({
      threadId: 'om_root',
      sessionKey: `feishu:${CHAT}:om_root`,
    });
  });

  it('keeps a quote reply outside a thread in the chat’s session', async () => {
    const b = await started();
    await b.feishu.event(b.feishu.messageEvent('quoted', { rootId: 'om_root' }));
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
    await b.feishu.event(
      b.feishu.messageEvent('', {
        messageType: 'post',
        content: { title: '', content: runs },
        mentions,
      }),
    );
    await b.feishu.event(
      b.feishu.messageEvent('', {
        messageType: 'post',
        content: { zh_cn: { title: 't', content: runs } },
        mentions,
      }),
    );
    await b.feishu.event(
      b.feishu.messageEvent('', { messageType: 'post', content: { zh_cn: { title: 't' } } }),
    );
    expect((await b.bus.receiveInbound()).text).toBe('确认');
    expect((await b.bus.receiveInbound()).text).toBe('确认');
    expect((await b.bus.receiveInbound()).text).toBe('');
  });

  it('gives an image (or unreadable content) empty text', async () => {
    const b = await started();
    await b.feishu.event(
      b.feishu.messageEvent('', { messageType: 'image', content: { image_key: 'img_v2_1' } }),
    );
    const broken = b.feishu.messageEvent('x') as { event: { message: { content: string } } };
    broken.event.message.content = '{not json';
    await b.feishu.event(broken);
    expect((await b.bus.receiveInbound()).text).toBe('');
    expect((await b.bus.receiveInbound()).text).toBe('');
  });

  it('marks another app’s message as a bot and the bot’s own as fromSelf (both dropped by hygiene)', async () => {
    const b = await started();
    const drops: string[] = [];
    b.bus.on('intercepted', ({ message }) => drops.push(`${message.senderIsBot}:${message.fromSelf}`));
    await b.feishu.event(b.feishu.messageEvent('hi', { sender: 'ou_other_app', senderType: 'app' }));
    await b.feishu.event(b.feishu.messageEvent('hi', { sender: BOT, senderType: 'app' }));
    expect(drops).toEqual(['true:false', 'true:true']);
  });

  it('ignores an event without a sender and one without a create_time gets none', async () => {
    const b = await started();
    const noSender = b.feishu.messageEvent('x') as { event: Record<string, unknown> };
    delete noSender.event['sender'];
    await b.feishu.event(noSender);
    const noTime = b.feishu.messageEvent('y') as {
      event: { message: Record<string, unknown> };
    };
    delete noTime.event.message['create_time'];
    await b.feishu.event(noTime);
    const message = await b.bus.receiveInbound();
    expect(message.text).toBe('y');
    expect(message.createdAt).toBeUndefined();
  });

  it('falls back to the message id when an event has no event id (schema 1.0 bodies carry uuid)', async () => {
    const b = await started();
    const event = b.feishu.messageEvent('x', { messageId: 'om_x' }) as {
      header: Record<string, unknown>;
    };
    delete event.header['event_id'];
    await b.feishu.event(event);
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
    await b.feishu.event(
      b.feishu.messageEvent('oops', { messageId: 'om_t', rootId: 'om_r', threadId: 'omt' }),
    );
    await b.feishu.event(b.feishu.recallEvent('om_t'));
    await b.feishu.event(b.feishu.recallEvent('om_unknown'));
    expect(seen).toEqual(['recall:ou_alice_2b91:om_r', 'recall:unknown:undefined']);
  });

  it('ignores a recall that names no message', async () => {
    const b = await started();
    const event = b.feishu.recallEvent('om_1') as { event: Record<string, unknown> };
    delete event.event['message_id'];
    await b.feishu.event(event);
    expect(b.bus.size.inbound).toBe(0);
    expect(b.errors).toEqual([]);
  });

  it('passes a click on a host’s own button to the consumer with its value unwrapped', async () => {
    const b = await started();
    const { answer } = await b.feishu.event(
      b.feishu.cardEvent({ parley_value: 'refresh' }, { messageId: 'om_elsewhere' }),
    );
    expect(answer).toEqual({ toast: { type: 'info', content: '已收到 Received' } });
    expect(await b.bus.receiveInbound()).toMatchObject({
      kind: 'card_action',
      action: 'refresh',
      senderId: ALICE,
      chatId: CHAT,
    });
    await cards(b, b.feishu.cardCallback({ a: 1, b: 2 }, { messageId: 'om_x' }));
    expect(await b.bus.receiveInbound()).toMatchObject({
      action: { a: 1, b: 2 },
      eventId: expect.stringMatching(/^card:c-/),
    });
  });

  it('answers an error toast for a click it could not address', async () => {
    const b = await started();
    const click = b.feishu.cardEvent('x', { messageId: 'om_1' }) as {
      event: Record<string, unknown>;
    };
    delete click.event['operator'];
    expect((await b.feishu.event(click)).answer).toMatchObject({ toast: { type: 'error' } });
    const bare = b.feishu.cardCallback(null, { messageId: 'om_1' }) as Record<string, unknown>;
    delete bare['open_chat_id'];
    delete bare['token'];
    expect(await cards(b, bare)).toMatchObject({ toast: { type: 'error' } });
  });
});

describe('events the bus cannot take', () => {
  it('unregisters its handlers when detached, and reports an event handed to it while detached', async () => {
    const b = await started();
    await b.bus.close();
    expect((await b.feishu.event(b.feishu.messageEvent('late'))).answer).toBe(
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
