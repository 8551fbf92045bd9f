import { createManualClock, createMemoryStore } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { ACTION, setup } from './helpers.js';

/** A store whose next `set` waits until `release()`; `written()` tells whether it landed. */
function slowSet() {
  const clock = createManualClock({ now: 1_000_000 });
  const inner = createMemoryStore({ clock });
  const store = createFakeStore({ inner });
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  store.before('compareAndSet', () => held);
  return { clock, store, release: () => release() };
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('the first prompt and its pending record', () => {
  it('sends the prompt only after the pending record is written, so a crash never leaves a prompt nobody can catch', async () => {
    const slow = slowSet();
    const h = await setup({ store: slow.store }, { clock: slow.clock, store: slow.store });
    void h.gate.request({ sessionKey: 'feishu:g1', action: ACTION, summary: 'DELETE', requester: 'alice' });
    await flush();
    expect(h.gate.pending()).toMatchObject([{ state: 'prompted' }]);
    expect(h.channel.sent).toEqual([]); // not before the record is durable
    const keys = async (): Promise<string[]> => {
      const out: string[] = [];
      for await (const entry of slow.store.inner.list('confirm:pending:')) out.push(entry.key);
      return out;
    };
    expect(await keys()).toEqual([]);
    slow.release();
    await flush();
    expect(await keys()).toHaveLength(1);
    expect(h.channel.sent.map((m) => m.text.startsWith('以下操作需要确认'))).toEqual([true]);
    await h.gate.close();
  });

  it('never sends the prompt of a confirmation aborted while its record was being written', async () => {
    const slow = slowSet();
    const h = await setup({ store: slow.store }, { clock: slow.clock, store: slow.store });
    const controller = new AbortController();
    const decided = h.gate.request({
      sessionKey: 'feishu:g1',
      action: ACTION,
      summary: 'DELETE',
      requester: 'alice',
      signal: controller.signal,
    });
    await flush();
    controller.abort();
    slow.release();
    expect(await decided).toMatchObject({ outcome: 'aborted', reason: 'signal' });
    await flush();
    expect(h.channel.sent).toEqual([]);
    await h.gate.close();
  });
});
