import { createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { assertNoPendingTimers, createFakeClock } from '../src/index.js';

describe('createFakeClock', () => {
  it('starts at the given time and moves only when told', () => {
    const clock = createFakeClock({ now: 1_000 });
    let fired = 0;
    clock.setTimeout(() => fired++, 100);
    expect(clock.now()).toBe(1_000);
    clock.advance(99);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('advances to the next timer and fires only the timers due then', () => {
    const clock = createFakeClock({ now: 0 });
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(1), 500);
    clock.setTimeout(() => fired.push(2), 500);
    clock.setTimeout(() => fired.push(3), 900);
    expect(clock.advanceToNextTimer()).toBe(500);
    expect(fired).toEqual([1, 2]);
    expect(clock.timers()).toEqual([{ dueAt: 900, scheduledAt: 0, delayMs: 900 }]);
    expect(clock.advanceToNextTimer()).toBe(900);
    expect(fired).toEqual([1, 2, 3]);
  });

  it('returns undefined and leaves time alone when no timer is pending', () => {
    const clock = createFakeClock({ now: 42 });
    expect(clock.advanceToNextTimer()).toBeUndefined();
    expect(clock.now()).toBe(42);
  });

  it('lists pending timers soonest first, forgetting cleared and fired ones', () => {
    const clock = createFakeClock({ now: 10 });
    const late = clock.setTimeout(() => {}, 300);
    clock.setTimeout(() => {}, 100);
    clock.setTimeout(() => {}, -5); // clamped to 0
    clock.clearTimeout(late);
    clock.clearTimeout(undefined);
    expect(clock.timers().map((t) => t.dueAt)).toEqual([10, 110]);
    clock.advance(0);
    expect(clock.timers().map((t) => t.dueAt)).toEqual([110]);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('leaves background timers out of the count and the list, however they became background', () => {
    const clock = createFakeClock({ now: 0 });
    clock.setTimeout(() => {}, 100, { background: true });
    const parked = clock.setTimeout(() => {}, 200);
    clock.setBackground(parked, true);
    clock.setTimeout(() => {}, 300);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.backgroundTimers()).toBe(2);
    expect(clock.timers().map((t) => t.dueAt)).toEqual([300]);
    expect(() => clock.assertNoPendingTimers()).toThrow(/1 timer is left/);
    clock.setBackground(parked, false);
    expect(clock.timers().map((t) => t.dueAt)).toEqual([200, 300]);
    clock.runAll();
    clock.setBackground(parked, true); // already fired: ignored
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 0]);
  });

  it('tracks timers scheduled by timers', () => {
    const clock = createFakeClock();
    clock.setTimeout(() => clock.setTimeout(() => {}, 50), 10);
    clock.advance(10);
    expect(clock.timers()).toEqual([{ dueAt: 60, scheduledAt: 10, delayMs: 50 }]);
    expect(clock.runAll()).toBe(1);
    expect(clock.timers()).toEqual([]);
  });
});

describe('assertNoPendingTimers', () => {
  it('passes when nothing is pending', () => {
    const clock = createFakeClock();
    const handle = clock.setTimeout(() => {}, 5);
    clock.clearTimeout(handle);
    expect(() => clock.assertNoPendingTimers()).not.toThrow();
  });

  it('fails with assertion_failed listing when each leftover timer is due', () => {
    const clock = createFakeClock({ now: 1_000 });
    clock.setTimeout(() => {}, 30_000);
    clock.setTimeout(() => {}, 300_000);
    clock.advance(500);
    const error = catchError(() => clock.assertNoPendingTimers('after the confirmation'));
    expect(isParleyError(error, 'assertion_failed')).toBe(true);
    expect((error as Error).message).toBe(
      'after the confirmation: expected no pending timers, but 2 timers are left (now 1500):\n' +
        '  1. due at 31000 (in 29500 ms; set at 1000 for 30000 ms)\n' +
        '  2. due at 301000 (in 299500 ms; set at 1000 for 300000 ms)',
    );
    expect((error as { details: object }).details).toEqual({
      pending: 2,
      now: 1_500,
      dueAt: [31_000, 301_000],
    });
  });

  it('works on core manual clocks, giving the count and the next due time', () => {
    const clock = createManualClock({ now: 0 });
    expect(() => assertNoPendingTimers(clock)).not.toThrow();
    clock.setTimeout(() => {}, 200);
    const error = catchError(() => assertNoPendingTimers(clock));
    expect((error as Error).message).toBe(
      'expected no pending timers, but 1 timer is left (now 0):\n  the next is due at 200 (in 200 ms)',
    );
  });
});

function catchError(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
