import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { createCorrelator, shutdownProtocol } from '../src/index.js';
import { flush, reply } from './helpers.js';

/** A store whose next compareAndSet waits until `release()` is called. */
function heldStore(clock: ReturnType<typeof createManualClock>) {
  const store = createFakeStore({ inner: createMemoryStore({ clock }) });
  let release: () => void = () => {};
  return {
    store,
    hold(): void {
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      store.before('compareAndSet', () => held);
    },
    release: () => release(),
  };
}

describe('close() while a settlement is being written', () => {
  it('keeps no record and arms no timer when the write lands after close', async () => {
    const clock = createManualClock({ now: 0 });
    const held = heldStore(clock);
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      clock,
      generateId: createSequentialIds('r'),
      store: held.store,
      timeoutMs: 1_000,
    });
    const outcome = lead
      .request(shutdownProtocol, { to: 'alice', payload: {} })
      .catch((e: { code: string }) => e.code);
    await flush();
    held.hold();
    const settled: unknown[] = [];
    lead.on('settled', (e) => settled.push(e));
    const receiving = lead.receive(reply('r1', { approve: true }));
    await flush();
    lead.close();
    held.release();
    await receiving;
    await flush();
    expect(await outcome).toBe('closed');
    expect(lead.stats()).toMatchObject({ pending: 0, settled: 0 });
    expect(lead.list()).toEqual([]);
    expect(settled).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});
