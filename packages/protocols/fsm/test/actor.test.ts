import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it, vi } from 'vitest';
import { createActor, defineMachine, requestMachine } from '../src/index.js';
import { echoMachine, orderMachine } from './helpers.js';

describe('createActor', () => {
  it('starts in the initial state with the machine context', () => {
    const actor = createActor(orderMachine, { clock: createManualClock({ now: 5 }) });
    expect(actor.state).toBe('draft');
    expect(actor.context).toEqual({ items: 0, paid: false });
    expect(actor.done).toBe(false);
    expect(actor.history).toEqual([]);
    expect(actor.snapshot()).toMatchObject({ machine: 'order', version: 2, createdAt: 5, updatedAt: 5 });
  });

  it('records each transition with the time of the injected clock', () => {
    const clock = createManualClock({ now: 1_000 });
    const actor = createActor(orderMachine, { clock, historyLimit: 100 });
    actor.send('add');
    clock.advance(250);
    actor.send('submit');
    expect(actor.history).toEqual([
      { from: 'draft', to: 'draft', event: 'add', at: 1_000 },
      { from: 'draft', to: 'review', event: 'submit', at: 1_250 },
    ]);
    expect(actor.snapshot().updatedAt).toBe(1_250);
  });

  it('keeps no history and reads no clock on send unless historyLimit asks for it', () => {
    const toggle = defineMachine({
      id: 'toggle',
      version: 1,
      initial: 'off',
      context: {},
      states: { off: { on: { flip: 'on' } }, on: { on: { flip: 'off' } } },
    });
    const clock = createManualClock({ now: 1_000 });
    const actor = createActor(toggle, { clock });
    const reads = vi.spyOn(clock, 'now');
    actor.send('flip');
    actor.send('flip');
    actor.send('flip');
    expect(reads).not.toHaveBeenCalled();
    expect(actor.history).toEqual([]);
    clock.advance(30);
    expect(actor.snapshot()).toMatchObject({ state: 'on', history: [], updatedAt: 1_030 });
    // A restored snapshot's history is kept by a default actor (up to DEFAULT_HISTORY_LIMIT entries,
    // and it goes on recording), and dropped only when historyLimit says 0.
    const kept = createActor(toggle, { clock, historyLimit: 5 });
    kept.send('flip');
    expect(reads).toHaveBeenCalled();
    const saved = JSON.parse(JSON.stringify(kept.snapshot()));
    const first = { from: 'off', to: 'on', event: 'flip', at: 1_030 };
    const resumed = createActor(toggle, { clock, snapshot: saved });
    expect(resumed.history).toEqual([first]);
    resumed.send('flip');
    expect(resumed.history).toEqual([first, { from: 'on', to: 'off', event: 'flip', at: 1_030 }]);
    expect(createActor(toggle, { clock, snapshot: saved, historyLimit: 0 }).history).toEqual([]);
    const none = createActor(toggle, { clock, snapshot: JSON.parse(JSON.stringify(actor.snapshot())) });
    none.send('flip');
    expect(none.history).toEqual([]); // a snapshot without history resumes without
  });

  it('returns the taken transition from send', () => {
    const actor = createActor(requestMachine, { clock: createManualClock() });
    expect(actor.send('approve')).toEqual({ ok: true, from: 'pending', to: 'approved', event: 'approve' });
  });

  it('emits transition and done after the state is committed', () => {
    const actor = createActor(requestMachine, { clock: createManualClock({ now: 7 }) });
    const seen: string[] = [];
    actor.on('transition', (t) => seen.push(`transition ${t.from}->${t.to} at ${t.at} state=${actor.state}`));
    actor.on('done', (d) => seen.push(`done ${d.state}`));
    actor.send({ type: 'approve', reason: 'looks fine' });
    expect(seen).toEqual(['transition pending->approved at 7 state=approved', 'done approved']);
  });

  it('emits refused and keeps the state when an event is refused', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    const refused = vi.fn();
    const transition = vi.fn();
    actor.on('refused', refused);
    actor.on('transition', transition);
    const result = actor.send('submit');
    expect(result).toMatchObject({ ok: false, code: 'guard_failed', guard: 'hasItems' });
    expect(refused).toHaveBeenCalledWith(result);
    expect(transition).not.toHaveBeenCalled();
    expect(actor.state).toBe('draft');
    expect(actor.history).toEqual([]);
  });

  it('emits done only for a transition that reaches a final state', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    const done = vi.fn();
    actor.on('done', done);
    actor.send('add');
    actor.send('submit');
    expect(done).not.toHaveBeenCalled();
    actor.send('cancel');
    expect(done).toHaveBeenCalledTimes(1);
  });

  it('refuses an event the machine does not declare with unknown_event instead of throwing', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    const refused = vi.fn();
    actor.on('refused', refused);
    const result = actor.send('explode' as 'add');
    expect(result).toMatchObject({ ok: false, code: 'unknown_event', event: 'explode', state: 'draft' });
    expect(refused).toHaveBeenCalledWith(result);
    expect(actor.state).toBe('draft');
  });

  it('answers false from can() for an event the machine does not declare', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    expect(actor.can('explode' as 'add')).toBe(false);
  });

  it('hands a guard the fields of an event object', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    actor.send('add');
    actor.send('submit');
    expect(actor.send({ type: 'pay', amount: 'full' })).toMatchObject({ ok: true, to: 'paid' });
    expect(actor.context.paid).toBe(true);
  });

  it('hands guards and assigns an event object { type } when the event is sent by name', () => {
    const actor = createActor(echoMachine, { clock: createManualClock() });
    expect(actor.send('go')).toMatchObject({ ok: true, to: 'b' });
    expect(actor.context).toEqual({ last: 'go' });
  });

  it('stops calling a listener once unsubscribed', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    const listener = vi.fn();
    const off = actor.on('transition', listener);
    off();
    actor.send('add');
    expect(listener).not.toHaveBeenCalled();
  });

  it('answers can() for events, guards included, without changing state', () => {
    const actor = createActor(orderMachine, { clock: createManualClock() });
    expect(actor.can('submit')).toBe(false);
    actor.send({ type: 'add', count: 3 });
    expect(actor.can('submit')).toBe(true);
    expect(actor.can({ type: 'pay', amount: 'full' })).toBe(false);
    expect(actor.state).toBe('draft');
  });

  it('refuses every event with closed after close() and keeps no timer', () => {
    const clock = createManualClock();
    const actor = createActor(orderMachine, { clock });
    actor.send('add');
    actor.send('submit');
    expect(clock.pendingTimers()).toBe(1);
    actor.close();
    actor.close();
    expect(actor.closed).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    expect(actor.send('cancel')).toMatchObject({ ok: false, code: 'closed', state: 'review' });
    expect(actor.can('cancel')).toBe(false);
    clock.advance(60_000);
    expect(actor.state).toBe('review');
  });

  it('keeps the last historyLimit transitions, oldest first', () => {
    const clock = createManualClock();
    const actor = createActor(orderMachine, { clock, historyLimit: 3 });
    for (let i = 0; i < 5; i++) {
      clock.advance(1);
      actor.send('add');
    }
    expect(actor.history.map((h) => h.at)).toEqual([3, 4, 5]);
    expect(actor.snapshot().history).toHaveLength(3);
  });

  it('keeps no history with historyLimit 0', () => {
    const actor = createActor(orderMachine, { clock: createManualClock(), historyLimit: 0 });
    actor.send('add');
    expect(actor.history).toEqual([]);
    expect(actor.context.items).toBe(1);
  });

  it('takes a context checked against the context schema', () => {
    const actor = createActor(orderMachine, {
      clock: createManualClock(),
      context: { items: 2, paid: false },
    });
    expect(actor.can('submit')).toBe(true);
    let error: unknown;
    try {
      createActor(orderMachine, { context: { items: -1, paid: false } });
    } catch (err) {
      error = err;
    }
    expect(isParleyError(error, 'invalid_context')).toBe(true);
  });

  it('takes the context given when the machine has no context schema', () => {
    const actor = createActor(echoMachine, { clock: createManualClock(), context: { last: 'given' } });
    expect(actor.context).toEqual({ last: 'given' });
  });

  it('names the machine and the missing fields when the given context fails the schema', () => {
    let details: unknown;
    try {
      createActor(orderMachine, { clock: createManualClock(), context: { items: 1 } as never });
    } catch (error) {
      details = isParleyError(error, 'invalid_context') ? error.details : undefined;
    }
    expect(details).toMatchObject({ machine: 'order', missingFields: ['paid'] });
  });

  it('keeps no history when historyLimit is negative', () => {
    const actor = createActor(orderMachine, { clock: createManualClock(), historyLimit: -1 });
    actor.send('add');
    expect(actor.history).toEqual([]);
    expect(actor.snapshot().history).toEqual([]);
  });

  it('uses the system clock by default', () => {
    const actor = createActor(requestMachine);
    expect(actor.snapshot().createdAt).toBeGreaterThan(0);
  });

  it('resumes from a snapshot with its history and context', () => {
    const clock = createManualClock({ now: 10 });
    const first = createActor(orderMachine, { clock });
    first.send({ type: 'add', count: 2 });
    const json = JSON.parse(JSON.stringify(first.snapshot()));
    const resumed = createActor(orderMachine, { clock, snapshot: json });
    expect(resumed.state).toBe('draft');
    expect(resumed.context).toEqual({ items: 2, paid: false });
    expect(resumed.history).toEqual(first.history);
    expect(resumed.snapshot()).toEqual(first.snapshot());
  });

  it('reads the clock once per send when it keeps history', () => {
    const clock = countingClock(createManualClock({ now: 50 }));
    const actor = createActor(orderMachine, { clock });
    const before = clock.reads;
    actor.send('add');
    expect(clock.reads - before).toBe(1);
  });

  it('reads no clock on send when nothing needs the time, and stamps updatedAt at the next snapshot', () => {
    const manual = createManualClock({ now: 50 });
    const clock = countingClock(manual);
    const actor = createActor(requestMachine, { clock, historyLimit: 0 });
    const before = clock.reads;
    manual.advance(10);
    actor.send('approve');
    expect(clock.reads).toBe(before);
    manual.advance(5);
    expect(actor.snapshot()).toMatchObject({ state: 'approved', createdAt: 50, updatedAt: 65 });
    manual.advance(5);
    expect(actor.snapshot().updatedAt).toBe(65);
  });

  it('reads the clock for a listener even without history', () => {
    const clock = createManualClock({ now: 9 });
    const actor = createActor(requestMachine, { clock, historyLimit: 0 });
    const at = vi.fn();
    actor.on('transition', (t) => at(t.at));
    actor.send('cancel');
    expect(at).toHaveBeenCalledWith(9);
    expect(actor.snapshot().updatedAt).toBe(9);
  });

  it('restores a history longer than its historyLimit, keeping the newest entries', () => {
    const clock = createManualClock();
    const first = createActor(orderMachine, { clock, historyLimit: 100 });
    for (let i = 0; i < 4; i++) {
      clock.advance(1);
      first.send('add');
    }
    const resumed = createActor(orderMachine, { clock, historyLimit: 3, snapshot: json(first.snapshot()) });
    expect(resumed.history.map((h) => h.at)).toEqual([2, 3, 4]);
    clock.advance(1);
    resumed.send('add');
    expect(resumed.history.map((h) => h.at)).toEqual([3, 4, 5]);
  });
});

function countingClock(inner: ReturnType<typeof createManualClock>) {
  const clock = {
    reads: 0,
    now: () => {
      clock.reads++;
      return inner.now();
    },
    setTimeout: inner.setTimeout,
    clearTimeout: inner.clearTimeout,
  };
  return clock;
}

function json<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value));
}
