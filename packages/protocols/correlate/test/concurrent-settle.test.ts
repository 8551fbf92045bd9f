import { createManualClock, createMemoryStore, createSequentialIds, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCorrelator, shutdownProtocol, type TrackedRequest } from '../src/index.js';
import { flush, recordEvents, reply } from './helpers.js';

/** A memory store whose next compareAndSet commits at once but answers only on `release()`. */
function slowAnswer(clock: ReturnType<typeof createManualClock>): {
  store: Store;
  hold(): void;
  release(): void;
} {
  const inner = createMemoryStore({ clock });
  let held: Promise<void> | undefined;
  let release: () => void = () => {};
  const store: Store = {
    get: (key) => inner.get(key),
    getEntry: (key) => inner.getEntry(key),
    set: (key, value, options) => inner.set(key, value, options),
    delete: (key) => inner.delete(key),
    async compareAndSet(key, version, value, options) {
      const wait = held;
      held = undefined;
      const result = await inner.compareAndSet(key, version, value, options);
      if (wait !== undefined) await wait;
      return result;
    },
    list: (prefix) => inner.list(prefix),
    watch: (prefix, listener, options) =>
      (inner.watch as NonNullable<Store['watch']>)(prefix, listener, options),
    close: () => inner.close(),
  };
  return {
    store,
    hold() {
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

describe('two settlements of one request on one durable instance', () => {
  it('lets the first write decide: the reply that follows an expiry being written is late, and the expiry is this instance’s own', async () => {
    const clock = createManualClock({ now: 0 });
    const slow = slowAnswer(clock);
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      clock,
      generateId: createSequentialIds('r'),
      store: slow.store,
      timeoutMs: 1_000,
    });
    const events = recordEvents(lead);
    const handled: TrackedRequest[] = [];
    lead.handle(shutdownProtocol, (request) => handled.push(request));
    const outcome = lead
      .request(shutdownProtocol, { to: 'alice', payload: {} })
      .catch((e: { code: string }) => e.code);
    await flush();
    slow.hold();
    clock.advance(1_000); // the expiry is written, its answer held
    const result = lead.receive(reply('r1', { approve: true }));
    await flush();
    slow.release();
    expect(await result).toMatchObject({ ok: false, code: 'late', state: 'expired' });
    await flush();
    expect(await outcome).toBe('timeout');
    expect(events.settled.map((e) => [e.request.state, e.remote])).toEqual([['expired', false]]);
    expect(handled.map((r) => r.state)).toEqual(['expired']); // the handler runs once, here
    expect(lead.stats().refused).toEqual({ late: 1 });
    lead.close();
  });

  it('neither writes nor counts a waiting reply as settled once the instance closes', async () => {
    const clock = createManualClock({ now: 0 });
    const slow = slowAnswer(clock);
    const options = {
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      clock,
      generateId: createSequentialIds('r'),
      store: slow.store,
      timeoutMs: 1_000,
    };
    const lead = createCorrelator(options);
    void lead.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    slow.hold();
    clock.advance(1_000); // the expiry is written, its answer held
    const result = lead.receive(reply('r1', { approve: true }));
    await flush();
    lead.close();
    slow.release();
    expect(await result).toMatchObject({ ok: false, code: 'closed', state: 'pending' });
    const next = createCorrelator({ ...options, generateId: createSequentialIds('n') });
    await next.restore();
    expect(next.get('r1')?.state).toBe('expired'); // the first write stands; the reply never overwrote it
    next.close();
  });
});
