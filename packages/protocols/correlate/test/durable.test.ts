import { createManualClock, createMemoryStore, createSequentialIds, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  type CorrelateMessage,
  createCorrelator,
  shutdownProtocol,
  type TrackedRequest,
} from '../src/index.js';
import { flush, recordEvents, reply, storedRequestAt } from './helpers.js';

function twoLeads(store?: Store) {
  const clock = createManualClock({ now: 1_000 });
  const shared = store ?? createMemoryStore({ clock });
  const wire: CorrelateMessage[] = [];
  const make = (prefix: string) =>
    createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: (m) => void wire.push(m),
      clock,
      store: shared,
      generateId: createSequentialIds(prefix),
    });
  return { clock, store: shared, wire, a: make('a_'), b: make('b_'), make };
}

describe('durable requests on a shared store', () => {
  it('writes a pending request through the store before sending it', async () => {
    const { a, store, wire } = twoLeads();
    void a.request(shutdownProtocol, { to: 'alice', payload: {} });
    expect(wire).toHaveLength(0);
    await flush();
    expect(wire).toHaveLength(1);
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({
      state: 'pending',
      to: 'alice',
      deadlineAt: 31_000,
    });
  });

  it('resolves the promise held by instance A when instance B settles the reply', async () => {
    const { a, b, store } = twoLeads();
    const handledA: TrackedRequest[] = [];
    const handledB: TrackedRequest[] = [];
    a.handle(shutdownProtocol, (r) => handledA.push(r));
    b.handle('shutdown', (r) => handledB.push(r));
    const promise = a.request(shutdownProtocol, { to: 'alice', payload: {} });
    await flush();
    expect(await b.receive(reply('a_1', { approve: true, reason: 'done' }))).toMatchObject({
      ok: true,
      state: 'approved',
    });
    await flush();
    await expect(promise).resolves.toMatchObject({ state: 'approved', reason: 'done' });
    expect(handledB.map((r) => r.state)).toEqual(['approved']);
    expect(handledA).toEqual([]); // handlers run once, on the instance that settled it
    expect(a.get('a_1')?.state).toBe('approved');
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({ state: 'approved' });
    expect(await a.receive(reply('a_1', { approve: true }))).toMatchObject({ code: 'duplicate' });
  });

  it('lets a restarted correlator know pending requests, expire them on time and run its handler once', async () => {
    const { a, clock, store, make } = twoLeads();
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    a.close(); // the process stops; the record stays pending in the store
    const restarted = make('c_');
    const handled: string[] = [];
    restarted.handle(shutdownProtocol, (r) => handled.push(`${r.id}:${r.state}`));
    expect(await restarted.restore()).toBe(1);
    expect(restarted.get('a_1')).toMatchObject({ state: 'pending', deadlineAt: 31_000 });
    clock.advance(29_999);
    await flush();
    expect(handled).toEqual([]);
    clock.advance(1);
    await flush();
    expect(handled).toEqual(['a_1:expired']);
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({ state: 'expired' });
    expect(await restarted.restore()).toBe(0);
  });

  it('settles a restored request when its reply arrives and calls the handler by protocol name', async () => {
    const { a, make } = twoLeads();
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    a.close();
    const restarted = make('c_');
    const handled: unknown[] = [];
    restarted.handle('shutdown', (r) => handled.push(r.response));
    // No restore(): an unknown id is looked up in the store.
    expect(await restarted.receive(reply('a_1', { approve: false, reason: 'busy' }))).toMatchObject({
      ok: true,
      state: 'rejected',
    });
    expect(handled).toEqual([{ approve: false, reason: 'busy' }]);
    await expect(restarted.waitFor('a_1')).resolves.toMatchObject({ state: 'rejected' });
    expect(await restarted.receive(reply('nope', { approve: true }))).toMatchObject({
      code: 'unknown_request',
    });
  });

  it('expires exactly once when two instances share the store', async () => {
    const { a, b, clock } = twoLeads();
    const promise = a.request(shutdownProtocol, { to: 'alice', payload: {} });
    await flush();
    expect(await b.restore()).toBe(1);
    const eventsA = recordEvents(a);
    const eventsB = recordEvents(b);
    let handled = 0;
    a.handle(shutdownProtocol, () => handled++);
    b.handle(shutdownProtocol, () => handled++);
    clock.advance(30_000);
    await flush();
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    expect(handled).toBe(1);
    expect([...eventsA.settled, ...eventsB.settled].filter((e) => !e.remote)).toHaveLength(1);
    expect(a.get('a_1')?.state).toBe('expired');
    expect(b.get('a_1')?.state).toBe('expired');
    expect(clock.pendingTimers()).toBe(0);
    expect(clock.backgroundTimers()).toBe(2); // only each instance's retention sweep remains
    clock.advance(5 * 60_000);
    expect(clock.backgroundTimers()).toBe(0);
  });

  it('shares a progress extension with the other instance so it does not expire early', async () => {
    const { a, b, clock } = twoLeads();
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    await b.restore();
    clock.advance(20_000);
    await a.receive({ kind: 'progress', request_id: 'a_1', protocol: 'shutdown', from: 'alice', to: 'lead' });
    await flush();
    expect(b.get('a_1')?.deadlineAt).toBe(51_000);
    clock.advance(10_000);
    await flush();
    expect(a.get('a_1')?.state).toBe('pending');
    expect(b.get('a_1')?.state).toBe('pending');
  });

  it('cancels through the store and lets the other instance see it', async () => {
    const { a, b } = twoLeads();
    const promise = a.request(shutdownProtocol, { to: 'alice', payload: {} });
    await flush();
    await b.restore();
    expect(await a.cancel('a_1', 'no longer needed')).toBe(true);
    await expect(promise).rejects.toMatchObject({ code: 'cancelled' });
    await flush();
    expect(b.get('a_1')).toMatchObject({ state: 'cancelled', reason: 'no longer needed' });
  });

  it('rejects with store_failed when the request cannot be written, and reports store failures as events', async () => {
    const clock = createManualClock();
    const memory = createMemoryStore({ clock });
    let failing = true;
    const store: Store = {
      ...memory,
      list: (prefix) => memory.list(prefix),
      compareAndSet: (...args) =>
        failing ? Promise.reject(new Error('down')) : memory.compareAndSet(...args),
      getEntry: (key) => (failing ? Promise.reject(new Error('down')) : memory.getEntry(key)),
    };
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      clock,
      store,
      generateId: () => 'r1',
    });
    const errors = recordEvents(lead).error;
    await expect(lead.request(shutdownProtocol, { to: 'alice', payload: {} })).rejects.toMatchObject({
      code: 'store_failed',
    });
    expect(await lead.receive(reply('zz', { approve: true }))).toMatchObject({ code: 'store_failed' });
    await expect(lead.waitFor('zz')).rejects.toMatchObject({ code: 'store_failed' });
    failing = false;
    const promise = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    await flush();
    failing = true;
    expect(await lead.receive(reply('r1', { approve: true }))).toMatchObject({
      ok: false,
      code: 'store_failed',
    });
    clock.advance(30_000); // the expiry write fails too: it is retried
    await flush();
    expect(lead.get('r1')?.state).toBe('pending');
    failing = false;
    clock.advance(1_000);
    await flush();
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    expect(errors.every((e) => e.code === 'store_failed')).toBe(true);
    expect(errors.length).toBeGreaterThanOrEqual(4);
  });
});
