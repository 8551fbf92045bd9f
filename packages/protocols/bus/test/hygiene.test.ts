import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  createHygieneInterceptor,
  createMessageBus,
  type HygieneDropReason,
  type InboundInput,
} from '../src/index.js';

const base: InboundInput = { channel: 'feishu', chatId: 'oc_1', senderId: 'ou_a', text: '确认' };

function setup(options: Parameters<typeof createHygieneInterceptor>[0] = {}) {
  const clock = createManualClock({ now: 100_000 });
  const bus = createMessageBus({ clock });
  const drops: HygieneDropReason[] = [];
  bus.intercept(createHygieneInterceptor({ onDrop: (_, reason) => drops.push(reason), ...options }));
  return { bus, drops, clock };
}

describe('createHygieneInterceptor', () => {
  it.each([
    ['the bot itself', { fromSelf: true }, 'from_self'],
    ['another bot', { senderIsBot: true }, 'bot'],
    ['an edit', { kind: 'edit' }, 'kind'],
    ['a recall', { kind: 'recall' }, 'kind'],
  ] as const)('drops a message from %s', async (_, extra, reason) => {
    const { bus, drops } = setup();
    expect((await bus.publishInbound({ ...base, ...extra })).status).toBe('intercepted');
    expect(drops).toEqual([reason]);
    expect(bus.size.inbound).toBe(0);
  });

  it('lets ordinary messages and card clicks through', async () => {
    const { bus, drops } = setup();
    expect((await bus.publishInbound(base)).status).toBe('queued');
    expect((await bus.publishInbound({ ...base, kind: 'card_action', action: 'x' })).status).toBe('queued');
    expect(drops).toEqual([]);
  });

  it('counts a redelivered event id once, per channel', async () => {
    const { bus, drops } = setup();
    expect((await bus.publishInbound({ ...base, eventId: 'e1' })).status).toBe('queued');
    expect((await bus.publishInbound({ ...base, eventId: 'e1' })).status).toBe('intercepted');
    expect((await bus.publishInbound({ ...base, channel: 'dingtalk', eventId: 'e1' })).status).toBe('queued');
    expect(drops).toEqual(['duplicate']);
  });

  it('forgets the oldest event ids past maxEventIds', async () => {
    const { bus } = setup({ maxEventIds: 2 });
    for (const eventId of ['e1', 'e2', 'e3']) await bus.publishInbound({ ...base, eventId });
    expect((await bus.publishInbound({ ...base, eventId: 'e1' })).status).toBe('queued');
    expect((await bus.publishInbound({ ...base, eventId: 'e3' })).status).toBe('intercepted');
  });

  it('keeps no ids when maxEventIds is 0', async () => {
    const { bus } = setup({ maxEventIds: 0 });
    await bus.publishInbound({ ...base, eventId: 'e1' });
    expect((await bus.publishInbound({ ...base, eventId: 'e1' })).status).toBe('queued');
  });

  it('drops messages older than maxAgeMs', async () => {
    const { bus, drops } = setup({ maxAgeMs: 1_000 });
    expect((await bus.publishInbound({ ...base, createdAt: 98_999 })).status).toBe('intercepted');
    expect((await bus.publishInbound({ ...base, createdAt: 99_000 })).status).toBe('queued');
    expect(drops).toEqual(['too_old']);
  });

  it('follows the options that turn rules off', async () => {
    const { bus } = setup({ dropBots: false, dropFromSelf: false, dropKinds: [] });
    for (const extra of [{ senderIsBot: true }, { fromSelf: true }, { kind: 'edit' as const }]) {
      expect((await bus.publishInbound({ ...base, ...extra })).status).toBe('queued');
    }
  });

  it('works without an onDrop listener', async () => {
    const bus = createMessageBus();
    bus.intercept(createHygieneInterceptor());
    expect((await bus.publishInbound({ ...base, fromSelf: true })).status).toBe('intercepted');
  });

  it('refuses bad options with invalid_argument', () => {
    for (const options of [
      { maxEventIds: -1 },
      { maxEventIds: 1.5 },
      { maxAgeMs: 0 },
      { maxAgeMs: Number.NaN },
    ]) {
      expect(() => createHygieneInterceptor(options)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
  });
});
