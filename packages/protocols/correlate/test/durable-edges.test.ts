import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCorrelator, planApprovalProtocol, type Protocol, shutdownProtocol } from '../src/index.js';
import { flush, recordEvents, storedPlanRequest, asStoredRecord, storedRequestAt } from './helpers.js';

function setup() {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  const make = (prefix: string, protocols: readonly Protocol[] = [shutdownProtocol]) =>
    createCorrelator({
      self: 'lead',
      protocols,
      send: () => {},
      clock,
      store,
      generateId: createSequentialIds(prefix),
    });
  return { clock, store, make };
}

describe('durable edge cases', () => {
  it('refuses to overwrite a stored request with the same id (store_failed)', async () => {
    const { make } = setup();
    const a = make('x_');
    const b = make('x_');
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    await expect(b.request(shutdownProtocol, { to: 'alice', payload: {} })).rejects.toMatchObject({
      code: 'store_failed',
    });
    a.close();
    b.close();
  });

  it('cancels, without sending, a request whose signal aborts while it is being written', async () => {
    const { make, store } = setup();
    const a = make('a_');
    const controller = new AbortController();
    const promise = a.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal });
    controller.abort();
    await expect(promise).rejects.toMatchObject({ code: 'cancelled' });
    await flush();
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({ state: 'cancelled' });
  });

  it('stops quietly when closed while a request is being written', async () => {
    const { make } = setup();
    const a = make('a_');
    const promise = a.request(shutdownProtocol, {
      to: 'alice',
      payload: {},
      signal: new AbortController().signal,
    });
    a.close();
    await expect(promise).rejects.toMatchObject({ code: 'closed' });
    await flush();
    expect(a.stats().pending).toBe(0);
  });

  it('treats a stored record that disappears as expired, without running handlers', async () => {
    const { make, store } = setup();
    const a = make('a_');
    let handled = 0;
    a.handle(shutdownProtocol, () => handled++);
    a.handle(shutdownProtocol, () => handled++);
    const events = recordEvents(a);
    const promise = a.request(shutdownProtocol, { to: 'alice', payload: {} });
    await flush();
    await store.delete('correlate:lead:a_1');
    await flush();
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    expect(events.settled.map((e) => e.remote)).toEqual([true]);
    expect(handled).toBe(0);
  });

  it('restores only what it can read, keeps settled records for audit, and does nothing when closed or storeless', async () => {
    const { make, store } = setup();
    await store.set('correlate:lead:junk', { nope: true });
    await store.set('correlate:lead:other', asStoredRecord(storedPlanRequest()));
    await store.set(
      'correlate:lead:done',
      asStoredRecord({
        v: 1,
        id: 'done',
        protocol: 'shutdown',
        from: 'lead',
        to: 'alice',
        state: 'approved',
        payload: {},
        response: { approve: true },
        createdAt: 0,
        deadlineAt: 5_000,
        maxDeadlineAt: 9_000,
        timeoutMs: 5_000,
        human: false,
        settledAt: 500,
      }),
    );
    const a = make('a_');
    expect(await a.restore()).toBe(0);
    expect(a.get('done')).toMatchObject({ state: 'approved', settledAt: 500 });
    expect(a.get('other')).toBeUndefined(); // its protocol is not registered here
    const b = make('b_', [shutdownProtocol, planApprovalProtocol]);
    expect(await b.restore()).toBe(1);
    await expect(b.waitFor('done')).resolves.toMatchObject({ approved: true });
    a.close();
    expect(await a.restore()).toBe(0);
    const memoryOnly = createCorrelator({ self: 'x', protocols: [], send: () => {} });
    expect(await memoryOnly.restore()).toBe(0);
    b.close();
  });

  it('waits through the store for a request another instance sent', async () => {
    const { make } = setup();
    const a = make('a_');
    const b = make('b_');
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    const waiting = b.waitFor('a_1');
    await flush();
    await a.cancel('a_1');
    await flush();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    await expect(b.waitFor('zzz')).rejects.toMatchObject({ code: 'unknown_request' });
    void a.request(shutdownProtocol, { to: 'alice', payload: {} }).catch(() => {});
    await flush();
    const late = b.waitFor('a_2');
    b.close();
    await expect(late).rejects.toMatchObject({ code: 'closed' });
    a.close();
  });
});

describe('responder deadlines and message shapes', () => {
  it('keeps an incoming request after progress until its maximum, then expires it', async () => {
    const clock = createManualClock({ now: 0 });
    const alice = createCorrelator({
      self: 'alice',
      protocols: [shutdownProtocol],
      send: () => {},
      clock,
      maxTotalMs: 60_000,
    });
    const base = {
      kind: 'request',
      request_id: 'q',
      protocol: 'shutdown',
      from: 'lead',
      to: 'alice',
      deadline_at: 10_000,
    };
    expect(await alice.receive({ ...base, payload: {} })).toMatchObject({ ok: true });
    expect(alice.progress('q').deadlineAt).toBe(60_000);
    clock.advance(59_999);
    expect(alice.get('q')?.state).toBe('pending');
    clock.advance(1);
    expect(alice.get('q')?.state).toBe('expired');
    const { request_id: _id, ...noId } = base;
    expect(await alice.receive({ ...base, request_id: 'r' })).toMatchObject({ code: 'malformed' }); // no payload
    expect(await alice.receive({ ...noId, payload: {} })).toMatchObject({ code: 'malformed' });
    expect(await alice.receive({ ...base, protocol: '', payload: {} })).toMatchObject({ code: 'malformed' });
    const note = { kind: 'progress', request_id: 'q', protocol: 'shutdown', from: 'lead', to: 'alice' };
    expect(await alice.receive({ ...note, note: 'x'.repeat(5000) })).toMatchObject({ code: 'malformed' });
    expect(await alice.receive({ ...note, kind: 'response' })).toMatchObject({ code: 'malformed' });
    alice.close();
  });
});

describe('listeners are removed', () => {
  it('removes abort listeners of requests and waiters when they settle or close', async () => {
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send: () => {},
      generateId: createSequentialIds('r'),
    });
    const controller = new AbortController();
    const first = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    const waiting = lead.waitFor('r1', { signal: controller.signal });
    await lead.receive({
      kind: 'response',
      request_id: 'r1',
      protocol: 'shutdown',
      from: 'alice',
      to: 'lead',
      response: { approve: true },
    });
    await expect(waiting).resolves.toMatchObject({ approved: true });
    await expect(first).resolves.toMatchObject({ approved: true });
    const second = lead.request(shutdownProtocol, { to: 'alice', payload: {}, signal: controller.signal });
    lead.close();
    await expect(second).rejects.toMatchObject({ code: 'closed' });
    controller.abort(); // nothing listens any more: no second settlement
    expect(lead.stats().pending).toBe(0);
  });
});
