import { type Clock, createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  type CorrelateMessage,
  type CorrelatorOptions,
  createCorrelator,
  planApprovalProtocol,
  type TrackedRequest,
} from '../src/index.js';
import { flush, recordEvents, reply, storedRequestAt } from './helpers.js';

/** Two instances of `lead` over one store and one manual clock, speaking plan approval to bob. */
function leads(extra: Partial<CorrelatorOptions> = {}) {
  const clock = createManualClock({ now: 1_000 });
  const store = createMemoryStore({ clock });
  const wire: CorrelateMessage[] = [];
  const make = (prefix: string) =>
    createCorrelator({
      self: 'lead',
      protocols: [planApprovalProtocol],
      send: (m) => void wire.push(m),
      clock,
      store,
      timeoutMs: 60_000,
      generateId: createSequentialIds(prefix),
      ...extra,
    });
  return { clock, store, wire, make };
}

const approve = (id: string): CorrelateMessage => reply(id, { approve: true }, 'bob', 'plan_approval');

/**
 * A clock whose time runs ahead of its timers, as when the event loop lags: `lag(ms)` moves `now`
 * without firing anything, `catchUp()` fires what fell due.
 */
function laggingClock() {
  const timers = createManualClock({ now: 1_000 });
  let now = 1_000;
  const clock: Clock = {
    now: () => now,
    setTimeout: (callback, delayMs, options) =>
      timers.setTimeout(callback, Math.max(0, now + delayMs - timers.now()), options),
    clearTimeout: (handle) => timers.clearTimeout(handle),
  };
  return {
    clock,
    lag(ms: number) {
      now += ms;
    },
    catchUp() {
      timers.advanceTo(now);
    },
  };
}

/** A memory-only `lead` on a lagging clock, with ids r_1, r_2… */
function laggingLead(timeoutMs?: number) {
  const lagging = laggingClock();
  const c = createCorrelator({
    self: 'lead',
    protocols: [planApprovalProtocol],
    send: () => {},
    clock: lagging.clock,
    generateId: createSequentialIds('r_'),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  return { lagging, c };
}

/**
 * Instance `a` sent request a_1 (deadline 60 s) and stopped; 120 s later instance `b` starts on the
 * same store, its timer not armed yet.
 */
async function overdue() {
  const { clock, store, make } = leads();
  const a = make('a_');
  void a.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'p' } }).catch(() => {});
  await flush();
  a.close();
  clock.advance(120_000);
  return { store, b: make('b_') };
}

describe('a settlement past the stored deadline', () => {
  it('[SETTLE-04] expires a restored overdue request instead of approving a reply that arrives before its timer', async () => {
    const { store, b } = await overdue();
    const handled: string[] = [];
    b.handle(planApprovalProtocol, (r) => void handled.push(`${r.id}:${r.state}`));
    await b.restore();
    const result = await b.receive(approve('a_1'));
    await flush();
    expect(result).toMatchObject({ ok: false, code: 'late', state: 'expired' });
    expect(handled).toEqual(['a_1:expired']);
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({ state: 'expired' });
    b.close();
  });

  it('[SETTLE-05] expires an overdue record another instance finds in the store on a reply, without restore()', async () => {
    const { store, b } = await overdue();
    const events = recordEvents(b);
    const handled: TrackedRequest[] = [];
    b.handle(planApprovalProtocol, (r) => void handled.push(r));
    const result = await b.receive(approve('a_1'));
    await flush();
    expect(result).toMatchObject({ ok: false, code: 'late', state: 'expired' });
    expect(handled.map((r) => r.state)).toEqual(['expired']);
    expect(events.settled.map((e) => e.request.state)).toEqual(['expired']);
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({ state: 'expired' });
    b.close();
  });

  it('[SETTLE-05] tells a waitFor on another instance that an overdue stored request expired, without restore()', async () => {
    const { b } = await overdue();
    await expect(b.waitFor('a_1')).rejects.toMatchObject({ code: 'timeout' });
    b.close();
  });

  it('[SETTLE-06] expires a request in memory when its reply comes 15 s after the deadline, before the timer ran', async () => {
    const { lagging, c } = laggingLead(60_000);
    const handled: string[] = [];
    c.handle(planApprovalProtocol, (r) => void handled.push(r.state));
    const promise = c.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'p' } });
    lagging.lag(75_000);
    const result = await c.receive(approve('r_1'));
    expect(result).toMatchObject({ ok: false, code: 'late', state: 'expired' });
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    expect(handled).toEqual(['expired']);
    lagging.catchUp(); // the late timer finds nothing left to do
    expect(handled).toEqual(['expired']);
    c.close();
  });

  it('[SETTLE-06] expires instead of cancelling a request whose deadline passed before cancel()', async () => {
    const { lagging, c } = laggingLead();
    const promise = c.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'p' } });
    lagging.lag(31_000);
    expect(await c.cancel('r_1')).toBe(false);
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    expect(c.get('r_1')?.state).toBe('expired');
    c.close();
  });

  it('[SETTLE-06] refuses a progress note that comes after the deadline and expires the request', async () => {
    const { lagging, c } = laggingLead();
    const promise = c.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'p' } });
    lagging.lag(31_000);
    const note: CorrelateMessage = {
      kind: 'progress',
      request_id: 'r_1',
      protocol: 'plan_approval',
      from: 'bob',
      to: 'lead',
      waiting_on_human: true,
    };
    expect(await c.receive(note)).toMatchObject({ ok: false, code: 'late', state: 'expired' });
    await expect(promise).rejects.toMatchObject({ code: 'timeout' });
    c.close();
  });

  it('[SETTLE-06] still approves a durable request whose reply arrives 1 ms before its deadline', async () => {
    const { clock, store, make } = leads();
    const a = make('a_');
    const promise = a.request(planApprovalProtocol, { to: 'bob', payload: { plan: 'p' } });
    await flush();
    clock.advance(59_999);
    const pending = a.receive(approve('a_1')); // decided now; the write happens in a microtask
    const result = await pending;
    expect(result).toMatchObject({ ok: true, state: 'approved' });
    await expect(promise).resolves.toMatchObject({ state: 'approved' });
    expect(await storedRequestAt(store, 'correlate:lead:a_1')).toMatchObject({ state: 'approved' });
    a.close();
  });

  it('[SETTLE-06] refuses to answer an incoming request past its deadline and expires it, before its timer ran', async () => {
    const lagging = laggingClock();
    const sent: CorrelateMessage[] = [];
    const bob = createCorrelator({
      self: 'bob',
      protocols: [planApprovalProtocol],
      send: (m) => void sent.push(m),
      clock: lagging.clock,
    });
    const request: CorrelateMessage = {
      kind: 'request',
      request_id: 'x1',
      protocol: 'plan_approval',
      from: 'lead',
      to: 'bob',
      payload: { plan: 'p' },
      deadline_at: 11_000,
    };
    expect(await bob.receive(request)).toMatchObject({ ok: true, state: 'pending' });
    lagging.lag(10_000);
    expect(() => bob.respond('x1', { approve: true })).toThrow(
      expect.objectContaining({ code: 'not_pending', details: { requestId: 'x1', state: 'expired' } }),
    );
    expect(() => bob.progress('x1')).toThrow(expect.objectContaining({ code: 'not_pending' }));
    expect(sent).toEqual([]);
    expect(bob.get('x1')?.state).toBe('expired');
    bob.close();
  });
});
