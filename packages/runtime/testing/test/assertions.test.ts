import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { assertNotSent, assertSent, createFakeChannel, expectOutbox } from '../src/index.js';

async function withOutbox() {
  const bus = createMessageBus();
  const channel = createFakeChannel({ channel: 'feishu' });
  await bus.attach(channel);
  await bus.publishOutbound({ channel: 'feishu', chatId: 'g1', text: '请回复 确认 或 取消' });
  await bus.publishOutbound({
    channel: 'feishu',
    chatId: 'g1',
    threadId: 't1',
    text: 'Delete 3 rows?',
    replyTo: 'evt-9',
    card: {
      title: 'Confirm',
      body: 'DELETE FROM orders',
      buttons: [
        { label: 'Yes', value: 1 },
        { label: 'No', value: 0 },
      ],
    },
  });
  await bus.publishOutbound({ channel: 'feishu', chatId: 'g2', text: 'other chat' });
  return { bus, channel };
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    expect(isParleyError(error, 'assertion_failed')).toBe(true);
    return error as Error;
  }
  throw new Error('expected an assertion failure');
}

describe('assertSent', () => {
  it('finds messages by text, card text, pattern, predicate or fields, returning the latest', async () => {
    const { channel } = await withOutbox();
    expect(assertSent(channel, '确认').text).toBe('请回复 确认 或 取消');
    expect(assertSent(channel, 'DELETE FROM').threadId).toBe('t1');
    expect(assertSent(channel, 'No').card?.title).toBe('Confirm');
    expect(assertSent(channel, /other/).chatId).toBe('g2');
    expect(assertSent(channel, (m) => m.replyTo === 'evt-9').text).toBe('Delete 3 rows?');
    expect(assertSent(channel, { chatId: 'g1' }).text).toBe('Delete 3 rows?');
    expect(assertSent(channel, 'Delete', { chatId: 'g1', threadId: 't1' }).sessionKey).toBe('feishu:g1:t1');
  });

  it('fails with what was expected and what the outbox held', async () => {
    const { channel } = await withOutbox();
    const error = thrown(() => assertSent(channel, '已取消', { chatId: 'g1' }));
    expect(error.message).toBe(
      'Expected the outbox of FakeChannel "feishu" (chat g1) to contain a message containing "已取消". It held 2 messages:\n' +
        '  1. [feishu:g1] "请回复 确认 或 取消"\n' +
        '  2. [feishu:g1:t1] "Delete 3 rows?" card "Confirm" [Yes | No]',
    );
  });

  it('describes each kind of matcher and an empty outbox, and mentions failed sends', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    expect(thrown(() => assertSent(channel, /x/, { threadId: 't' })).message).toBe(
      'Expected the outbox of FakeChannel "fake" (thread t) to contain a message matching /x/. It was empty.',
    );
    function isCard(m: { card?: unknown }): boolean {
      return m.card !== undefined;
    }
    expect(thrown(() => assertSent(channel, isCard)).message).toContain('a message satisfying isCard.');
    expect(thrown(() => assertSent(channel, () => true)).message).toContain('satisfying the predicate');
    expect(thrown(() => assertSent(channel, { text: 'x' })).message).toContain('with {"text":"x"}');
    channel.failSends(2);
    await bus.publishOutbound({ channel: 'fake', chatId: 'c', text: 'lost' });
    expect(thrown(() => assertSent(channel, 'lost')).message).toContain(
      '(1 send failed and is not in the outbox.)',
    );
    await bus.publishOutbound({ channel: 'fake', chatId: 'c', text: 'lost' });
    expect(thrown(() => assertSent(channel, 'lost')).message).toContain(
      '(2 sends failed and are not in the outbox.)',
    );
  });

  it('lists at most twenty messages and cuts long texts', async () => {
    const bus = createMessageBus();
    const channel = createFakeChannel();
    await bus.attach(channel);
    for (let i = 0; i < 22; i++)
      await bus.publishOutbound({ channel: 'fake', chatId: 'c', text: `m${i}${'.'.repeat(130)}` });
    const message = thrown(() => assertSent(channel, 'nope')).message;
    expect(message).toContain('It held 22 messages');
    expect(message).toContain('  20. [fake:c] "m19');
    expect(message).toContain('… and 2 more');
    expect(message).not.toContain('21. ');
    expect(message).toContain('…"');
  });
});

describe('assertNotSent', () => {
  it('passes when nothing matches and fails naming how many did', async () => {
    const { channel } = await withOutbox();
    assertNotSent(channel, '已执行');
    assertNotSent(channel, 'other chat', { chatId: 'g1' });
    expect(thrown(() => assertNotSent(channel, /Delete|确认/)).message).toMatch(
      /^Expected the outbox of FakeChannel "feishu" to contain no message matching \/Delete\|确认\/, but 2 messages matched\. It held 3 messages/,
    );
  });
});

describe('expectOutbox', () => {
  it('asserts text, matchers, length, buttons and the last message', async () => {
    const { channel } = await withOutbox();
    const g1 = expectOutbox(channel, { chatId: 'g1' });
    expect(g1.toContainText('确认').chatId).toBe('g1');
    expect(g1.toContain({ replyTo: 'evt-9' }).threadId).toBe('t1');
    g1.notToContain('other chat');
    g1.toHaveLength(2);
    expect(g1.toHaveButtons(['Yes', 'No']).card?.title).toBe('Confirm');
    expect(g1.lastToMatch(/rows/).text).toBe('Delete 3 rows?');
    expectOutbox(channel, { chatId: 'g3' }).toBeEmpty();
  });

  it('fails each assertion with the outbox listed', async () => {
    const { channel } = await withOutbox();
    const g1 = expectOutbox(channel, { chatId: 'g1' });
    expect(thrown(() => g1.toHaveLength(1)).message).toMatch(
      /^Expected the outbox of FakeChannel "feishu" \(chat g1\) to hold 1 message\. It held 2 messages/,
    );
    expect(thrown(() => g1.toBeEmpty()).message).toContain('to be empty. It held 2 messages');
    expect(thrown(() => g1.toHaveButtons(['确认', '取消'])).message).toContain(
      'to end with a card with the buttons ["确认","取消"], but the latest card has ["Yes","No"]',
    );
    expect(thrown(() => g1.toHaveButtons(['Yes'])).message).toContain('the latest card has ["Yes","No"]');
    expect(thrown(() => expectOutbox(channel, { chatId: 'g2' }).toHaveButtons([])).message).toContain(
      'but no card was sent',
    );
    expect(thrown(() => g1.lastToMatch('确认')).message).toContain('to end with a message containing "确认"');
    expect(thrown(() => expectOutbox(channel, { chatId: 'g3' }).lastToMatch('x')).message).toContain(
      'It was empty.',
    );
  });
});
