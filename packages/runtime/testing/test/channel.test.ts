import { createHygieneInterceptor, createMessageBus } from '@parley/bus';
import { attached } from './helpers.js';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFakeChannel, createFakeClock, drainInbound } from '../src/index.js';

describe('createFakeChannel: talking', () => {
  it('delivers what users say in several chats with fresh event ids and the clock time', async () => {
    const clock = createFakeClock({ now: 5_000 });
    const { bus, channel } = await attached({ clock });
    expect(channel.connected).toBe(true);
    await channel.say('g1', 'alice', 'hi');
    clock.advance(10);
    await channel.say('g2', 'bob', 'yo', { threadId: 't9' });
    const [first, second] = await drainInbound(bus);
    expect(first).toMatchObject({
      channel: 'feishu',
      sessionKey: 'feishu:g1',
      senderId: 'alice',
      eventId: 'feishu-evt-1',
      createdAt: 5_000,
    });
    expect(second).toMatchObject({
      sessionKey: 'feishu:g2:t9',
      senderId: 'bob',
      eventId: 'feishu-evt-2',
      createdAt: 5_010,
    });
    expect(channel.delivered.map((d) => d.result.status)).toEqual(['queued', 'queued']);
  });

  it('uses the channel name fake and no createdAt by default', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    await channel.say('c', 'u', 'x');
    const message = await bus.receiveInbound();
    expect(message.sessionKey).toBe('fake:c');
    expect(message.createdAt).toBeUndefined();
  });

  it('delivers card clicks with the button value as the action', async () => {
    const { bus, channel } = await attached();
    await channel.click('g1', 'alice', { confirmation: 'cfm_1.confirm' });
    expect(await bus.receiveInbound()).toMatchObject({
      kind: 'card_action',
      action: { confirmation: 'cfm_1.confirm' },
      text: '',
    });
  });

  it('gives a handle per chat and thread', async () => {
    const { bus, channel } = await attached();
    const thread = channel.chat('g1', 't1');
    await thread.say('alice', 'in thread');
    await thread.click('alice', 'v');
    await bus.publishOutbound({
      channel: 'feishu',
      chatId: 'g1',
      threadId: 't1',
      text: 'answer',
      card: { buttons: [{ label: 'OK', value: 1 }] },
    });
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'main' });
    await thread.clickButton('bob', 'OK');
    expect(thread.chatId).toBe('g1');
    expect(thread.threadId).toBe('t1');
    expect(thread.sent.map((m) => m.text)).toEqual(['answer']);
    expect(thread.lastSent()?.text).toBe('answer');
    expect(channel.chat('g1').sent.map((m) => m.text)).toEqual(['answer', 'main']);
    expect(channel.chat('g1').threadId).toBeUndefined();
    expect((await drainInbound(bus)).map((m) => [m.sessionKey, m.kind, m.senderId])).toEqual([
      ['feishu:g1:t1', 'message', 'alice'],
      ['feishu:g1:t1', 'card_action', 'alice'],
      ['feishu:g1:t1', 'card_action', 'bob'],
    ]);
  });

  it('rejects with not_connected when no bus is attached, and after detaching', async () => {
    const channel = createFakeChannel();
    const error = await channel.say('g1', 'a', 'x').catch((err: unknown) => err);
    expect(isParleyError(error, 'not_connected')).toBe(true);
    expect((error as Error).message).toMatch(/not attached to a bus/);
    const bus = createMessageBus();
    const detach = await bus.attach(channel);
    detach();
    expect(channel.connected).toBe(false);
    await expect(channel.deliver({ chatId: 'g1', senderId: 'a' })).rejects.toMatchObject({
      code: 'not_connected',
    });
    expect(channel.delivered).toEqual([]);
  });
});

describe('createFakeChannel: cards and buttons', () => {
  it('clicks a button of the latest card that has it, in the card thread', async () => {
    const { bus, channel } = await attached();
    await bus.publishOutbound({
      channel: 'feishu',
      chatId: 'g1',
      text: 'old',
      card: { buttons: [{ label: '确认', value: 'old' }] },
    });
    await bus.publishOutbound({
      channel: 'feishu',
      chatId: 'g1',
      threadId: 'th',
      text: 'new',
      card: {
        buttons: [
          { label: '确认', value: 'new' },
          { label: '取消', value: 'no' },
        ],
      },
    });
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'plain' });
    expect(channel.buttons('g1').map((b) => b.label)).toEqual(['确认', '取消']);
    expect(channel.buttons('g2')).toEqual([]);
    const result = await channel.clickButton('g1', 'alice', /^确认$/);
    expect(result).toMatchObject({
      status: 'queued',
      message: { action: 'new', sessionKey: 'feishu:g1:th', kind: 'card_action' },
    });
  });

  it('refuses a click on a missing button with no_button, listing the cards there', async () => {
    const { bus, channel } = await attached();
    await expect(channel.clickButton('g1', 'alice', '确认')).rejects.toThrow(
      'FakeChannel "feishu": no button labelled "确认" in a card sent to chat g1; no card was sent there (outbox of that chat: 0 messages)',
    );
    await bus.publishOutbound({
      channel: 'feishu',
      chatId: 'g1',
      text: 'Delete?',
      card: { title: 'Confirm', buttons: [{ label: 'Yes', value: 1 }] },
    });
    const error = await channel
      .clickButton('g1', 'alice', '确认', { threadId: 'x' })
      .catch((err: unknown) => err);
    expect(isParleyError(error, 'no_button')).toBe(true);
    expect((error as Error).message).toContain('thread x');
    const other = await channel
      .clickButton('g1', 'alice', 'No')
      .catch((err: unknown) => (err as Error).message);
    expect(other).toContain('cards there have the buttons: [feishu:g1] "Delete?" card "Confirm" [Yes]');
    expect(channel.delivered).toEqual([]);
  });
});

describe('createFakeChannel: outbox', () => {
  it('records sent messages per chat and thread, and forgets them on clear', async () => {
    const { bus, channel } = await attached();
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'a' });
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g2', threadId: 't', text: 'b' });
    expect(channel.outbox().map((m) => m.text)).toEqual(['a', 'b']);
    expect(channel.outbox({ chatId: 'g2', threadId: 't' }).map((m) => m.text)).toEqual(['b']);
    expect(channel.outbox({ chatId: 'g2', threadId: 'other' })).toEqual([]);
    expect(channel.lastSent()?.text).toBe('b');
    expect(channel.lastSent('g1')?.text).toBe('a');
    expect(channel.lastSent('g3')).toBeUndefined();
    channel.clear();
    expect([channel.sent, channel.sends, channel.delivered]).toEqual([[], [], []]);
  });

  it('fails the next sends on cue, records them, and keeps them out of the outbox', async () => {
    const { bus, channel } = await attached();
    channel.failSends(2);
    const first = await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'a' });
    expect(first).toMatchObject({ status: 'rejected', code: 'send_failed' });
    expect(isParleyError((first as { error: unknown }).error, 'injected_fault')).toBe(true);
    const custom = new Error('429 Too Many Requests');
    channel.failSends(1, custom);
    expect(await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'b' })).toMatchObject({
      error: custom,
    });
    expect((await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'c' })).status).toBe('sent');
    expect(channel.sends.map((s) => [s.message.text, s.ok])).toEqual([
      ['a', false],
      ['b', false],
      ['c', true],
    ]);
    expect(channel.sent.map((m) => m.text)).toEqual(['c']);
  });

  it('echoes sent messages back as the bot itself when asked, which hygiene drops', async () => {
    const { bus, channel } = await attached({ echo: true, botId: 'ou_bot' });
    const dropped: string[] = [];
    bus.intercept(createHygieneInterceptor({ onDrop: (_message, reason) => dropped.push(reason) }));
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', threadId: 't', text: 'hello' });
    expect(channel.delivered).toHaveLength(1);
    expect(channel.delivered[0]).toMatchObject({
      fault: 'echo',
      input: { senderId: 'ou_bot', fromSelf: true, senderIsBot: true, text: 'hello', threadId: 't' },
      result: { status: 'intercepted' },
    });
    expect(dropped).toEqual(['from_self']);
    expect(bus.size.inbound).toBe(0);
  });
});

describe('createFakeChannel: waitForSent', () => {
  it('resolves with a message already sent, or waits for the next matching one', async () => {
    const { bus, channel } = await attached();
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'old prompt' });
    expect((await channel.waitForSent('prompt')).text).toBe('old prompt');
    expect((await channel.waitForSent(/old/, { chatId: 'g1' })).text).toBe('old prompt');
    const next = channel.waitForSent();
    const inG2 = channel.waitForSent((m) => m.text.startsWith('b'), { chatId: 'g2' });
    const card = channel.waitForSent('Yes');
    let early = false;
    void inG2.then(() => (early = true));
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'a' });
    expect((await next).text).toBe('a');
    await Promise.resolve();
    expect(early).toBe(false);
    await bus.publishOutbound({
      channel: 'feishu',
      chatId: 'g2',
      text: 'b',
      card: { buttons: [{ label: 'Yes', value: 1 }] },
    });
    expect((await inG2).chatId).toBe('g2');
    expect((await card).text).toBe('b');
  });

  it('does not resolve with a failed send', async () => {
    const { bus, channel } = await attached();
    channel.failSends(1);
    const next = channel.waitForSent();
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'lost' });
    await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: 'kept' });
    expect((await next).text).toBe('kept');
  });
});

describe('createFakeChannel send receipts', () => {
  it('reports the time it took each message as its platform stamp', async () => {
    const clock = createFakeClock({ now: 5_000 });
    const channel = createFakeChannel({ channel: 'tg', clock });
    const bus = createMessageBus({ clock });
    await bus.attach(channel);
    clock.advance(250);
    expect(await bus.publishOutbound({ channel: 'tg', chatId: 'ops', text: 'prompt' })).toMatchObject({
      status: 'sent',
      sentAt: 5_250,
    });
  });
});
