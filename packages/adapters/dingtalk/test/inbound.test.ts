import { afterEach, describe, expect, it } from 'vitest';
import { TOPIC_CARD, TOPIC_ROBOT } from 'dingtalk-stream';
import { isParleyError } from '@parley/core';
import type { DingTalkAdapterError } from '../src/index.js';
import { ALICE, BOT_UID, DIRECT, GROUP, startQuiet, stopQuiet } from './harness.js';

afterEach(stopQuiet);
const started = startQuiet;

describe('robot messages', () => {
  it('maps a group message with its sender, conversation, msgId and createAt, and acknowledges it', async () => {
    const b = await started();
    const ack = await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('  hello  ', { msgId: 'msgA==' }))
      .acked;
    expect(ack).toMatchObject({ code: 200, data: '{"response":{}}' });
    const message = await b.bus.receiveInbound();
    expect(message).toMatchObject({
      channel: 'dingtalk',
      chatId: GROUP,
      sessionKey: `dingtalk:${GROUP}`,
      senderId: ALICE,
      fromSelf: false,
      text: 'hello',
      eventId: 'msgA==',
      createdAt: b.clock.now(),
    });
    expect(message.threadId).toBeUndefined();
  });

  it('maps a direct message (conversationType 1) to its own session', async () => {
    const b = await started();
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('hi', { conversationType: '1' })).acked;
    expect(await b.bus.receiveInbound()).toMatchObject({ chatId: DIRECT, senderId: ALICE });
  });

  it('strips a leading @botName when the robot’s name is configured', async () => {
    const b = await started({ adapter: { botName: 'Ops bot' } });
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('@Ops bot  确认', {})).acked;
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('@Alice 确认', {})).acked;
    expect((await b.bus.receiveInbound()).text).toBe('确认');
    expect((await b.bus.receiveInbound()).text).toBe('@Alice 确认');
  });

  it('reads rich text runs, and gives a picture empty text', async () => {
    const b = await started();
    const rich = { content: { richText: [{ text: '确' }, { pictureDownloadCode: 'x' }, { text: '认' }] } };
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('', { msgtype: 'richText', extra: rich }))
      .acked;
    await b.dingtalk.push(
      TOPIC_ROBOT,
      b.dingtalk.robotMessage('', { msgtype: 'richText', extra: { content: {} } }),
    ).acked;
    await b.dingtalk.push(
      TOPIC_ROBOT,
      b.dingtalk.robotMessage('', { msgtype: 'picture', extra: { content: { downloadCode: 'd' } } }),
    ).acked;
    expect((await b.bus.receiveInbound()).text).toBe('确认');
    expect((await b.bus.receiveInbound()).text).toBe('');
    expect((await b.bus.receiveInbound()).text).toBe('');
  });

  it('falls back to senderId, to the stream message id and to no createdAt when fields are missing', async () => {
    const b = await started();
    const bare = b.dingtalk.robotMessage('x', {
      extra: { senderStaffId: '', msgId: undefined, createAt: undefined },
    });
    const frame = b.dingtalk.push(TOPIC_ROBOT, bare);
    await frame.acked;
    const message = await b.bus.receiveInbound();
    expect(message).toMatchObject({ senderId: `$:LWCP_v1:$${ALICE}`, eventId: `stream:${frame.messageId}` });
    expect(message.createdAt).toBeUndefined();
  });

  it('marks the robot’s own message as fromSelf, which hygiene drops', async () => {
    const b = await started();
    const drops: boolean[] = [];
    b.bus.on('intercepted', ({ message }) => drops.push(message.fromSelf === true));
    await b.dingtalk.push(
      TOPIC_ROBOT,
      b.dingtalk.robotMessage('echo', { extra: { senderId: BOT_UID, senderStaffId: '' } }),
    ).acked;
    expect(drops).toEqual([true]);
  });

  it('acknowledges and ignores a frame it cannot read or address', async () => {
    const b = await started();
    await b.dingtalk.push(TOPIC_ROBOT, 'not an object').acked;
    await b.dingtalk.push(TOPIC_ROBOT, '{not json', { raw: true }).acked;
    await b.dingtalk.push(TOPIC_CARD, '{not json', { raw: true }).acked;
    await b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('x', { extra: { conversationId: '' } })).acked;
    await b.dingtalk.push(TOPIC_CARD, b.dingtalk.cardCallback({}, { outTrackId: 'o', user: '' })).acked;
    expect(b.bus.size.inbound).toBe(0);
    expect(b.errors).toEqual([]);
  });
});

describe('card callbacks', () => {
  it('reads the button value from params.value, plain or JSON, and other params as they are', async () => {
    const b = await started();
    await b.dingtalk.push(
      TOPIC_CARD,
      b.dingtalk.cardCallback({ value: '{"a":1}' }, { outTrackId: 'unknown' }),
    ).acked;
    await b.dingtalk.push(
      TOPIC_CARD,
      b.dingtalk.cardCallback({ value: 'plain text' }, { outTrackId: 'unknown' }),
    ).acked;
    await b.dingtalk.push(TOPIC_CARD, b.dingtalk.cardCallback({ choice: 'x' }, { outTrackId: 'unknown' }))
      .acked;
    const objectContent = {
      ...b.dingtalk.cardCallback({}, { outTrackId: 'u' }),
      content: { cardPrivateData: { params: { value: '7' } } },
    };
    await b.dingtalk.push(TOPIC_CARD, objectContent).acked;
    const noContent = { ...b.dingtalk.cardCallback({}, { outTrackId: 'u' }), content: 'oops' };
    await b.dingtalk.push(TOPIC_CARD, noContent).acked;
    const actions = [];
    for (let i = 0; i < 5; i++) actions.push((await b.bus.receiveInbound()).action);
    expect(actions).toEqual([{ a: 1 }, 'plain text', { choice: 'x' }, 7, null]);
  });

  it('gives a click the conversation of a card it sent, with an event id per stream message', async () => {
    const b = await started();
    await b.bus.publishOutbound({
      channel: 'dingtalk',
      chatId: 'cidOther==',
      text: 'pick',
      card: { buttons: [{ label: 'A', value: 'a' }] },
    });
    const outTrackId = b.dingtalk.sent[0]?.outTrackId;
    const frame = b.dingtalk.push(
      TOPIC_CARD,
      b.dingtalk.cardCallback({ value: '"a"' }, outTrackId === undefined ? {} : { outTrackId }),
    );
    await frame.acked;
    expect(await b.bus.receiveInbound()).toMatchObject({
      kind: 'card_action',
      chatId: 'cidOther==',
      action: 'a',
      eventId: `card:${frame.messageId}`,
    });
  });
});

describe('messages the bus cannot take', () => {
  it('reports, and leaves unacknowledged, a message the full bus refuses', async () => {
    const errors: DingTalkAdapterError[] = [];
    let heard: () => void = () => undefined;
    const reported = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const b = await started({
      adapter: {
        onError: (error) => {
          errors.push(error);
          heard();
        },
      },
    });
    const acks: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++)
      acks.push(b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage(`m${i}`, {})).acked);
    await Promise.all(acks);
    const refused = b.dingtalk.push(TOPIC_ROBOT, b.dingtalk.robotMessage('one more', {}));
    await reported;
    expect(isParleyError(errors[0], 'not_delivered')).toBe(true);
    expect(errors[0]?.details).toMatchObject({ code: 'queue_full', messageId: refused.messageId });
  });

  it('disconnects the stream when detached', async () => {
    const b = await started();
    const closed = b.dingtalk.disconnected();
    await b.bus.close();
    await closed; // the stand-in saw the client close its socket
    expect(b.dingtalk.gateway).toHaveLength(1);
  });
});
