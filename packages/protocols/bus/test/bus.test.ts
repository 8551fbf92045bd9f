import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type BusEvents, createMessageBus, type InboundInput } from '../src/index.js';

const hello: InboundInput = { channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: 'hello' };

function recordDrops(bus: ReturnType<typeof createMessageBus>): BusEvents['dropped'][] {
  const drops: BusEvents['dropped'][] = [];
  bus.on('dropped', (event) => drops.push(event));
  return drops;
}

describe('publishInbound', () => {
  it('queues a message with its session key, kind, text and receive time', async () => {
    const clock = createManualClock({ now: 1_000 });
    const bus = createMessageBus({ clock });
    const result = await bus.publishInbound({
      channel: 'slack',
      chatId: 'C1',
      threadId: 't1',
      senderId: 'U1',
    });
    expect(result.status).toBe('queued');
    const message = await bus.receiveInbound();
    expect(message).toMatchObject({
      sessionKey: 'slack:C1:t1',
      kind: 'message',
      text: '',
      receivedAt: 1_000,
    });
  });

  it.each([
    ['a missing channel', { chatId: 'c', senderId: 'u' }],
    ['an empty chat id', { channel: 'c', chatId: '', senderId: 'u' }],
    ['an empty thread id', { channel: 'c', chatId: 'c', threadId: '', senderId: 'u' }],
    ['a missing sender', { channel: 'c', chatId: 'c' }],
    ['a non-string text', { channel: 'c', chatId: 'c', senderId: 'u', text: 5 }],
    ['an unknown kind', { channel: 'c', chatId: 'c', senderId: 'u', kind: 'poke' }],
    ['a NaN createdAt', { channel: 'c', chatId: 'c', senderId: 'u', createdAt: Number.NaN }],
    ['an empty event id', { channel: 'c', chatId: 'c', senderId: 'u', eventId: '' }],
    ['null', null],
  ])('rejects %s as invalid_message without throwing', async (_, input) => {
    const bus = createMessageBus();
    const drops = recordDrops(bus);
    const result = await bus.publishInbound(input as unknown as InboundInput);
    expect(result).toMatchObject({ status: 'rejected', code: 'invalid_message' });
    expect(drops).toMatchObject([{ direction: 'inbound', code: 'invalid_message' }]);
    expect(bus.size.inbound).toBe(0);
  });

  it('rejects with queue_full when the queue is full under the reject policy', async () => {
    const bus = createMessageBus({ capacity: 2 });
    const drops = recordDrops(bus);
    await bus.publishInbound({ ...hello, text: '1' });
    await bus.publishInbound({ ...hello, text: '2' });
    const third = await bus.publishInbound({ ...hello, text: '3' });
    expect(third).toMatchObject({ status: 'rejected', code: 'queue_full', message: { text: '3' } });
    expect(drops).toHaveLength(1);
    expect((await bus.receiveInbound()).text).toBe('1');
    expect((await bus.receiveInbound()).text).toBe('2');
    expect(bus.size.inbound).toBe(0);
  });

  it('evicts the oldest message under the drop-oldest policy', async () => {
    const bus = createMessageBus({ capacity: 2, overflow: 'drop-oldest' });
    const drops = recordDrops(bus);
    for (const text of ['1', '2', '3'])
      expect((await bus.publishInbound({ ...hello, text })).status).toBe('queued');
    expect(drops).toMatchObject([{ code: 'queue_full', message: { text: '1' } }]);
    expect((await bus.receiveInbound()).text).toBe('2');
    expect((await bus.receiveInbound()).text).toBe('3');
  });

  it('hands a message straight to a waiting consumer', async () => {
    const bus = createMessageBus({ capacity: 1 });
    const waiting = bus.receiveInbound();
    await bus.publishInbound(hello);
    expect((await waiting).text).toBe('hello');
    expect(bus.size.inbound).toBe(0);
  });

  it('keeps working through many messages in order', async () => {
    const bus = createMessageBus({ capacity: 5000 });
    for (let i = 0; i < 3000; i++) await bus.publishInbound({ ...hello, text: String(i) });
    for (let i = 0; i < 3000; i++) expect((await bus.receiveInbound()).text).toBe(String(i));
    expect(bus.size.inbound).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => createMessageBus({ capacity: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createMessageBus({ capacity: 1.5 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('refuses an unknown overflow policy', () => {
    // @ts-expect-error an unknown policy is a compile error too
    expect(() => createMessageBus({ overflow: 'block' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('interceptors', () => {
  it('lets an interceptor consume a message so that no consumer sees it', async () => {
    const bus = createMessageBus();
    const seen: string[] = [];
    bus.on('intercepted', ({ by, message }) => seen.push(`${by}:${message.text}`));
    bus.intercept({ name: 'pong', intercept: (message) => message.text === 'ping' });
    expect(await bus.publishInbound({ ...hello, text: 'ping' })).toMatchObject({
      status: 'intercepted',
      by: 'pong',
    });
    expect((await bus.publishInbound(hello)).status).toBe('queued');
    expect(seen).toEqual(['pong:ping']);
    expect(bus.size.inbound).toBe(1);
  });

  it('runs interceptors in order and stops at the first that consumes', async () => {
    const bus = createMessageBus();
    const calls: string[] = [];
    bus.intercept({
      name: 'a',
      intercept: () => {
        calls.push('a');
        return false;
      },
    });
    bus.intercept({ name: 'b', intercept: async () => calls.push('b') > 0 });
    bus.intercept({ name: 'c', intercept: () => calls.push('c') < 0 });
    expect(await bus.publishInbound(hello)).toMatchObject({ status: 'intercepted', by: 'b' });
    expect(calls).toEqual(['a', 'b']);
  });

  it('continues after an async interceptor that lets the message pass', async () => {
    const bus = createMessageBus();
    bus.intercept({ name: 'slow', intercept: async () => false });
    bus.intercept({ name: 'last', intercept: () => false });
    expect((await bus.publishInbound(hello)).status).toBe('queued');
  });

  it('drops the message when an interceptor throws, failing closed', async () => {
    const bus = createMessageBus();
    const drops = recordDrops(bus);
    const boom = new Error('boom');
    bus.intercept({
      name: 'broken',
      intercept: () => {
        throw boom;
      },
    });
    expect(await bus.publishInbound(hello)).toMatchObject({
      status: 'rejected',
      code: 'interceptor_failed',
      by: 'broken',
      error: boom,
    });
    expect(drops).toMatchObject([{ code: 'interceptor_failed', by: 'broken' }]);
    expect(bus.size.inbound).toBe(0);
  });

  it('drops the message when an async interceptor rejects', async () => {
    const bus = createMessageBus();
    bus.intercept({ name: 'broken', intercept: () => Promise.reject(new Error('boom')) });
    expect(await bus.publishInbound(hello)).toMatchObject({ status: 'rejected', code: 'interceptor_failed' });
    expect(bus.size.inbound).toBe(0);
  });

  it('stops calling an interceptor once it is removed', async () => {
    const bus = createMessageBus();
    let calls = 0;
    const remove = bus.intercept({ name: 'count', intercept: () => ++calls < 0 });
    await bus.publishInbound(hello);
    remove();
    remove();
    await bus.publishInbound(hello);
    expect(calls).toBe(1);
  });
});

describe('consumption and close', () => {
  it('iterates inbound messages until the bus closes', async () => {
    const bus = createMessageBus();
    await bus.publishInbound({ ...hello, text: 'a' });
    await bus.publishInbound({ ...hello, text: 'b' });
    const texts: string[] = [];
    const done = (async () => {
      for await (const message of bus.inbound()) texts.push(message.text);
    })();
    await bus.publishInbound({ ...hello, text: 'c' });
    await bus.close();
    await done;
    expect(texts).toEqual(['a', 'b', 'c']);
  });

  it('ends an iteration when its signal aborts', async () => {
    const bus = createMessageBus();
    const controller = new AbortController();
    const done = (async () => {
      for await (const _ of bus.inbound({ signal: controller.signal })) throw new Error('unexpected message');
      return 'ended';
    })();
    controller.abort();
    expect(await done).toBe('ended');
  });

  it('rejects a receive with cancelled when its signal aborts or was already aborted', async () => {
    const bus = createMessageBus();
    const controller = new AbortController();
    const waiting = bus.receiveInbound({ signal: controller.signal });
    controller.abort('stop');
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled', cause: 'stop' });
    await expect(bus.receiveInbound({ signal: controller.signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
    await bus.publishInbound(hello);
    expect(bus.size.inbound).toBe(1); // the aborted waiter took nothing
  });

  it('rejects waiting receives with closed and refuses publishes after close', async () => {
    const bus = createMessageBus();
    const drops = recordDrops(bus);
    const waiting = bus.receiveInbound({ signal: new AbortController().signal });
    await bus.close();
    await bus.close();
    const error = await waiting.catch((err: unknown) => err);
    expect(isParleyError(error, 'closed')).toBe(true);
    expect(bus.closed).toBe(true);
    expect(await bus.publishInbound(hello)).toMatchObject({ status: 'rejected', code: 'closed' });
    expect(await bus.publishOutbound({ channel: 'x', chatId: 'y', text: 'z' })).toMatchObject({
      code: 'closed',
    });
    expect(drops.map((d) => d.code)).toEqual(['closed', 'closed']);
  });

  it('drops a message that an async interceptor passed after the bus closed', async () => {
    const bus = createMessageBus();
    let release: (value: boolean) => void = () => {};
    bus.intercept({ name: 'slow', intercept: () => new Promise<boolean>((resolve) => (release = resolve)) });
    const pending = bus.publishInbound(hello);
    await bus.close();
    release(false);
    expect(await pending).toMatchObject({ status: 'rejected', code: 'closed' });
  });

  it('still drains messages queued before close', async () => {
    const bus = createMessageBus();
    await bus.publishInbound(hello);
    await bus.close();
    expect((await bus.receiveInbound()).text).toBe('hello');
    await expect(bus.receiveInbound()).rejects.toMatchObject({ code: 'closed' });
  });
});
