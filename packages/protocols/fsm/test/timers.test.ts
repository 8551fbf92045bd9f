import { createManualClock } from '@parley/core';
import { describe, expect, it, vi } from 'vitest';
import {
  createActor,
  type Deadline,
  defineMachine,
  defineRequestMachine,
  requestMachine,
} from '../src/index.js';
import { orderMachine } from './helpers.js';

const reviewing = (clock: ReturnType<typeof createManualClock>) => {
  const actor = createActor(orderMachine, { clock, historyLimit: 100 });
  actor.send('add');
  actor.send('submit');
  return actor;
};

describe('timeouts (after)', () => {
  it('sends the timeout event exactly after the declared delay', () => {
    const clock = createManualClock({ now: 0 });
    const actor = reviewing(clock);
    clock.advance(59_999);
    expect(actor.state).toBe('review');
    clock.advance(1);
    expect(actor.state).toBe('cancelled');
    expect(actor.history.at(-1)).toEqual({ from: 'review', to: 'cancelled', event: 'timeout', at: 60_000 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('clears the timer when the state is left before the deadline', () => {
    const clock = createManualClock();
    const actor = reviewing(clock);
    actor.send('cancel');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stores absolute deadlines in the snapshot', () => {
    const clock = createManualClock({ now: 1_000 });
    const actor = reviewing(clock);
    expect(actor.snapshot().deadlines).toEqual([{ at: 61_000, event: 'timeout' }]);
    expect(actor.deadlines).toEqual([{ at: 61_000, event: 'timeout' }]);
  });

  it('fires a pending timeout of a restored actor after exactly the remaining time', () => {
    const clock = createManualClock({ now: 0 });
    const snapshot = JSON.parse(JSON.stringify(reviewing(clock).snapshot()));
    const later = createManualClock({ now: 45_000 });
    const restored = createActor(orderMachine, { clock: later, snapshot, historyLimit: 100 });
    expect(later.nextTimerAt()).toBe(60_000);
    later.advance(14_999);
    expect(restored.state).toBe('review');
    later.advance(1);
    expect(restored.state).toBe('cancelled');
  });

  it('fires an overdue timeout of a restored actor before any other event is taken', () => {
    const snapshot = JSON.parse(JSON.stringify(reviewing(createManualClock({ now: 0 })).snapshot()));
    const later = createManualClock({ now: 90_000 });
    const restored = createActor(orderMachine, { clock: later, snapshot, historyLimit: 100 });
    const result = restored.send({ type: 'pay', amount: 'full' });
    expect(result).toMatchObject({ ok: false, code: 'machine_done', state: 'cancelled' });
    expect(restored.history.at(-1)).toEqual({
      from: 'review',
      to: 'cancelled',
      event: 'timeout',
      at: 60_000,
    });
  });

  it('fires an overdue timeout of a restored actor on the clock’s next turn, with listeners told', () => {
    const snapshot = JSON.parse(JSON.stringify(reviewing(createManualClock({ now: 0 })).snapshot()));
    const later = createManualClock({ now: 90_000 });
    const restored = createActor(orderMachine, { clock: later, snapshot, historyLimit: 100 });
    const done = vi.fn();
    restored.on('done', done);
    expect(later.nextTimerAt()).toBe(90_000);
    later.advance(0);
    expect(done).toHaveBeenCalledWith({ state: 'cancelled', at: 60_000, context: { items: 1, paid: false } });
    expect(later.pendingTimers()).toBe(0);
  });

  it('fires an overdue timeout when the state is read', () => {
    const snapshot = JSON.parse(JSON.stringify(reviewing(createManualClock({ now: 0 })).snapshot()));
    const restored = createActor(orderMachine, {
      clock: createManualClock({ now: 70_000 }),
      snapshot,
      historyLimit: 100,
    });
    expect(restored.state).toBe('cancelled');
  });

  it('fires a timeout that falls due exactly now before the event that is sent', () => {
    const snapshot = JSON.parse(JSON.stringify(reviewing(createManualClock({ now: 0 })).snapshot()));
    const restored = createActor(orderMachine, {
      clock: createManualClock({ now: 60_000 }),
      snapshot,
      historyLimit: 100,
    });
    const result = restored.send({ type: 'pay', amount: 'full' });
    expect(result).toMatchObject({ ok: false, code: 'machine_done', state: 'cancelled' });
    expect(restored.context.paid).toBe(false);
  });

  it('fires a timeout that falls due exactly now when the state is read', () => {
    const snapshot = JSON.parse(JSON.stringify(reviewing(createManualClock({ now: 0 })).snapshot()));
    const restored = createActor(orderMachine, {
      clock: createManualClock({ now: 60_000 }),
      snapshot,
      historyLimit: 100,
    });
    expect(restored.state).toBe('cancelled');
  });

  it('takes no timeout after close(), even one overdue when an event is sent', () => {
    const clock = createManualClock();
    const actor = reviewing(clock);
    const transition = vi.fn();
    actor.on('transition', transition);
    actor.close();
    clock.advance(90_000);
    expect(actor.send('cancel')).toMatchObject({ ok: false, code: 'closed', state: 'review' });
    expect(transition).not.toHaveBeenCalled();
    expect(actor.state).toBe('review');
  });

  it('returns a copy of the deadlines: changing it moves no timeout', () => {
    const clock = createManualClock();
    const actor = reviewing(clock);
    (actor.deadlines as Deadline[]).pop();
    expect(actor.deadlines).toEqual([{ at: 60_000, event: 'timeout' }]);
    clock.advance(60_000);
    expect(actor.state).toBe('cancelled');
  });

  it('spends a timeout refused by a guard and reports it', () => {
    const machine = defineMachine({
      id: 'guarded-timeout',
      version: 1,
      initial: 'wait',
      context: { armed: false },
      states: {
        wait: { on: { tick: { target: 'gone', guard: (c) => c.armed } }, after: { 100: 'tick' } },
        gone: { final: true },
      },
    });
    const clock = createManualClock();
    const actor = createActor(machine, { clock, historyLimit: 100 });
    const refused = vi.fn();
    actor.on('refused', refused);
    clock.advance(100);
    expect(actor.state).toBe('wait');
    expect(refused).toHaveBeenCalledWith(expect.objectContaining({ code: 'guard_failed', event: 'tick' }));
    expect(clock.pendingTimers()).toBe(0);
    expect(actor.deadlines).toEqual([]);
  });

  it('keeps timeouts running through an internal transition and chains the next ones', () => {
    const machine = defineMachine({
      id: 'ticker',
      version: 1,
      initial: 'on',
      context: { ticks: 0 },
      states: {
        on: {
          on: { tick: { assign: (c) => ({ ticks: c.ticks + 1 }) }, stop: 'off' },
          after: { 100: 'tick', 250: 'stop' },
        },
        off: { final: true },
      },
    });
    const clock = createManualClock();
    const actor = createActor(machine, { clock, historyLimit: 100 });
    clock.advance(300);
    expect(actor.state).toBe('off');
    expect(actor.context.ticks).toBe(1);
    expect(actor.history.map((h) => `${h.event}@${h.at}`)).toEqual(['tick@100', 'stop@250']);

    const pure = machine.transition(machine.initialSnapshot({ at: 0 }), 'stop', { at: 120 });
    expect(pure.ok && pure.snapshot.context.ticks).toBe(1);
    expect(pure.ok && pure.snapshot.deadlines).toEqual([]);
  });

  it('gives the state a timeout enters its own deadlines in the pure transition', () => {
    const machine = defineMachine({
      id: 'relay',
      version: 1,
      initial: 'first',
      context: {},
      states: {
        first: { on: { pass: 'second' }, after: { 100: 'pass' } },
        second: { on: { pass: 'last', poke: {} }, after: { 50: 'pass' } },
        last: { final: true },
      },
    });
    const result = machine.transition(machine.initialSnapshot({ at: 0 }), 'poke', { at: 120 });
    expect(result.ok && result.snapshot.state).toBe('second');
    expect(result.ok && result.snapshot.deadlines).toEqual([{ at: 150, event: 'pass' }]);
  });

  it('drops a due timeout refused by a guard in the pure transition', () => {
    const machine = defineMachine({
      id: 'pure-guard',
      version: 1,
      initial: 'wait',
      context: {},
      states: {
        wait: { on: { tick: { target: 'gone', guard: () => false }, go: 'gone' }, after: { 10: 'tick' } },
        gone: { final: true },
      },
    });
    const result = machine.transition(machine.initialSnapshot({ at: 0 }), 'go', { at: 50 });
    expect(result).toMatchObject({ ok: true, from: 'wait', to: 'gone' });
  });

  it('arms the initial state’s timeout on creation', () => {
    const clock = createManualClock();
    const actor = createActor(defineRequestMachine({ id: 'plan', timeoutMs: 1_000 }), { clock });
    expect(actor.deadlines).toEqual([{ at: 1_000, event: 'expire' }]);
    clock.advance(1_000);
    expect(actor.state).toBe('expired');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('sets no timer for a machine without timeouts', () => {
    const clock = createManualClock();
    createActor(requestMachine, { clock });
    expect(clock.pendingTimers()).toBe(0);
  });
});
