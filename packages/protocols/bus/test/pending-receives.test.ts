import { describe, expect, it } from 'vitest';
import { type ChannelAdapter, createMessageBus, type DeliverInbound } from '../src/index.js';

describe('receives waiting on one shared AbortSignal', () => {
  it('[SETTLE-14] keeps one abort listener for 50 waiting receives and cancels them all, with no warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const bus = createMessageBus();
      const controller = new AbortController();
      const { signal } = controller;
      const live = new Set<unknown>();
      const add = signal.addEventListener.bind(signal);
      const remove = signal.removeEventListener.bind(signal);
      signal.addEventListener = (type: string, listener: never, options?: never) => {
        live.add(listener);
        add(type, listener, options);
      };
      signal.removeEventListener = (type: string, listener: never, options?: never) => {
        live.delete(listener);
        remove(type, listener, options);
      };
      const waits = Array.from({ length: 50 }, () => bus.receiveInbound({ signal }));
      expect(live.size).toBe(1);
      await bus.publishInbound({ channel: 'c', chatId: 'g', senderId: 'u', text: 'first' });
      await expect(waits[0]).resolves.toMatchObject({ text: 'first' });
      expect(live.size).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      controller.abort(new Error('stop'));
      const codes = await Promise.all(
        waits.slice(1).map((w) =>
          w.then(
            () => 'ok',
            (e: { code: string }) => e.code,
          ),
        ),
      );
      expect(new Set(codes)).toEqual(new Set(['cancelled']));
      expect(live.size).toBe(0);
      await bus.close();
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('attach racing close', () => {
  it('[SETTLE-15] disconnects an adapter whose connect finished after close, and refuses the attach with closed', async () => {
    const bus = createMessageBus();
    let finish: () => void = () => {};
    let deliver: DeliverInbound | undefined;
    let stopped = 0;
    const adapter: ChannelAdapter = {
      channel: 'slow',
      send: () => {},
      connect: (d) =>
        new Promise((resolve) => {
          deliver = d;
          finish = () =>
            resolve(() => {
              stopped++;
            });
        }),
    };
    const attaching = bus.attach(adapter);
    await bus.close();
    finish();
    await expect(attaching).rejects.toMatchObject({ code: 'closed' });
    expect(stopped).toBe(1);
    expect(await deliver?.({ chatId: 'g', senderId: 'u', text: 'late' })).toMatchObject({ code: 'closed' });
  });
});
