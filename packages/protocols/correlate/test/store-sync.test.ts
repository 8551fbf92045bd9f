import { createManualClock, createMemoryStore, createSequentialIds, type Store } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { withoutWatch } from '../../../../tests/support/stores.js';
import { shutdownProtocol } from '../src/index.js';
import { createLead, faultyStore, flush, recordEvents, reply, storedRequestAt } from './helpers.js';

/** Instance A on a faulty view of a memory store and instance B on the store itself; A has sent a_1. */
async function twoInstances(storeOf: (store: Store) => Store = (store) => store) {
  const clock = createManualClock({ now: 1_000 });
  const memory = createMemoryStore({ clock });
  const faulty = faultyStore(storeOf(memory));
  const make = (prefix: string, store: Store) =>
    createLead({ clock, store, generateId: createSequentialIds(prefix) });
  const a = make('a_', faulty.store);
  const b = make('b_', memory);
  const events = recordEvents(a);
  const outcome = a.request(shutdownProtocol, { to: 'alice', payload: {} }).then(
    (r) => r.state,
    (e: { code: string }) => e.code,
  );
  await flush();
  await b.restore();
  return { clock, memory, ...faulty, a, b, events, outcome };
}

describe('hearing what another instance wrote', () => {
  it('hears another instance settle a request after its own write of it failed', async () => {
    const { a, b, faults, outcome } = await twoInstances();
    faults.failWrites = true;
    expect(await a.receive(reply('a_1', { approve: true }))).toMatchObject({ code: 'store_failed' });
    faults.failWrites = false;
    await b.cancel('a_1');
    await flush();
    expect(a.get('a_1')?.state).toBe('cancelled');
    expect(await outcome).toBe('cancelled');
  });

  it('hears another instance settle a request after its own progress write', async () => {
    const { a, b, outcome } = await twoInstances();
    const note = { kind: 'progress', request_id: 'a_1', protocol: 'shutdown', from: 'alice', to: 'lead' };
    expect(await a.receive(note)).toMatchObject({ ok: true, kind: 'progress' });
    await b.restore();
    await b.cancel('a_1');
    await flush();
    expect(await outcome).toBe('cancelled');
  });

  it('reports a store it cannot read while catching up as store_failed, and tries again a second later', async () => {
    const { a, b, clock, faults, events, outcome } = await twoInstances();
    faults.failReads = true;
    await b.cancel('a_1');
    await flush();
    expect(events.error).toEqual([{ code: 'store_failed', requestId: 'a_1', error: new Error('down') }]);
    faults.failReads = false;
    clock.advance(999);
    await flush();
    expect(a.get('a_1')?.state).toBe('pending');
    clock.advance(1);
    await flush();
    expect(a.get('a_1')?.state).toBe('cancelled');
    expect(await outcome).toBe('cancelled');
  });

  it('expires a request whose stored record became unreadable, saying the record is gone', async () => {
    const { a, memory, outcome } = await twoInstances();
    await memory.set('correlate:lead:a_1', { nope: true });
    await flush();
    expect(a.get('a_1')).toMatchObject({ state: 'expired', reason: expect.stringContaining('gone') });
    expect(await outcome).toBe('timeout');
  });

  it('takes the time another instance settled a request from the store', async () => {
    const { a, b, clock, outcome } = await twoInstances(withoutWatch);
    clock.advance(1_000);
    await b.cancel('a_1');
    clock.advance(29_000); // a's own deadline: its expiry write loses to b's cancellation
    await flush();
    expect(a.get('a_1')).toMatchObject({ state: 'cancelled', settledAt: 2_000 });
    expect(await outcome).toBe('cancelled');
    a.close();
  });

  it('catches up on changes it missed when the store reconnects', async () => {
    const { a, b, faults, reconnect, outcome } = await twoInstances();
    faults.loseChanges = true;
    await b.cancel('a_1');
    await flush();
    expect(a.get('a_1')?.state).toBe('pending');
    faults.loseChanges = false;
    reconnect();
    await flush();
    expect(await outcome).toBe('cancelled');
  });

  it('settles on a reply that finds the record moved, unheard, by another instance: it writes again once', async () => {
    const { a, b, clock, memory, faults, outcome } = await twoInstances();
    faults.loseChanges = true;
    clock.advance(1_000);
    const note = { kind: 'progress', request_id: 'a_1', protocol: 'shutdown', from: 'alice', to: 'lead' };
    expect(await b.receive(note)).toMatchObject({ ok: true, kind: 'progress' });
    await flush();
    // A still holds the version it wrote: its first write conflicts, it reads B's, and writes again.
    expect(await a.receive(reply('a_1', { approve: true }))).toMatchObject({ ok: true, state: 'approved' });
    expect(await outcome).toBe('approved');
    expect(await storedRequestAt(memory, 'correlate:lead:a_1')).toMatchObject({ state: 'approved' });
    a.close();
    b.close();
  });

  it('refuses a reply as store_failed after a second conflict in a row, leaving the request pending', async () => {
    let writes = 0;
    const { a, outcome } = await twoInstances((store) => ({
      ...store,
      compareAndSet: (k, expected, value, options) => {
        writes++;
        // The first write (the request itself) lands; every later one loses a race it never wins.
        return writes === 1
          ? store.compareAndSet(k, expected, value, options)
          : Promise.resolve({ ok: false as const, version: 99 });
      },
    }));
    expect(await a.receive(reply('a_1', { approve: true }))).toMatchObject({
      ok: false,
      code: 'store_failed',
      state: 'pending',
    });
    expect(writes).toBe(3);
    expect(a.get('a_1')?.state).toBe('pending');
    a.close();
    expect(await outcome).toBe('closed');
  });
});
