import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  assertTimeoutMs,
  createManualClock,
  isParleyError,
  MAX_TIMEOUT_MS,
  systemClock,
} from '../src/index.js';

describe('createManualClock', () => {
  it('starts at the given time and stands still', () => {
    const clock = createManualClock({ now: 1_000 });
    expect(clock.now()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
    expect(createManualClock().now()).toBe(0);
  });

  it('fires a timer only once its delay has fully passed', () => {
    const clock = createManualClock();
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 100);
    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([100]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('fires timers in due order, then in the order they were set', () => {
    const clock = createManualClock();
    const order: string[] = [];
    clock.setTimeout(() => order.push('b'), 20);
    clock.setTimeout(() => order.push('a'), 10);
    clock.setTimeout(() => order.push('c'), 20);
    clock.advance(50);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('runs each timer at its own due time, so now() inside a callback is exact', () => {
    const clock = createManualClock();
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), 10);
    clock.setTimeout(() => seen.push(clock.now()), 30);
    clock.advance(100);
    expect(seen).toEqual([10, 30]);
    expect(clock.now()).toBe(100);
  });

  it('fires timers scheduled by a callback when they fall inside the advanced window', () => {
    const clock = createManualClock();
    const seen: number[] = [];
    clock.setTimeout(() => {
      seen.push(clock.now());
      clock.setTimeout(() => seen.push(clock.now()), 10);
    }, 10);
    clock.advance(25);
    expect(seen).toEqual([10, 20]);
  });

  it('never fires a cleared timer and ignores unknown or undefined handles', () => {
    const clock = createManualClock();
    const callback = vi.fn();
    const handle = clock.setTimeout(callback, 10);
    clock.clearTimeout(handle);
    clock.clearTimeout(handle);
    clock.clearTimeout(undefined);
    clock.advance(20);
    expect(callback).not.toHaveBeenCalled();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('treats a negative or non-finite delay as zero', () => {
    const clock = createManualClock({ now: 5 });
    const callback = vi.fn();
    clock.setTimeout(callback, -10);
    clock.setTimeout(callback, Number.NaN);
    expect(clock.nextTimerAt()).toBe(5);
    clock.advance(0);
    expect(callback).toHaveBeenCalledTimes(2);
  });

  it('advanceTo moves to an absolute time and refuses to go backwards', () => {
    const clock = createManualClock({ now: 100 });
    const callback = vi.fn();
    clock.setTimeout(callback, 50);
    clock.advanceTo(150);
    expect(callback).toHaveBeenCalledOnce();
    expect(clock.now()).toBe(150);
    expect(() => clock.advanceTo(10)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('runNext jumps to the next due time and reports when nothing is pending', () => {
    const clock = createManualClock();
    const callback = vi.fn();
    clock.setTimeout(callback, 500);
    expect(clock.nextTimerAt()).toBe(500);
    expect(clock.runNext()).toBe(true);
    expect(clock.now()).toBe(500);
    expect(callback).toHaveBeenCalledOnce();
    expect(clock.runNext()).toBe(false);
    expect(clock.nextTimerAt()).toBeUndefined();
  });

  it('runAll fires every timer, including ones scheduled while running, and counts them', () => {
    const clock = createManualClock();
    clock.setTimeout(() => clock.setTimeout(() => {}, 1_000), 10);
    clock.setTimeout(() => {}, 20);
    expect(clock.runAll()).toBe(3);
    expect(clock.now()).toBe(1_010);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops a timer that keeps rescheduling itself with clock_runaway', () => {
    const clock = createManualClock({ maxTimersPerRun: 50 });
    const loop = (): void => {
      clock.setTimeout(loop, 1);
    };
    clock.setTimeout(loop, 1);
    let thrown: unknown;
    try {
      clock.runAll();
    } catch (error) {
      thrown = error;
    }
    expect(isParleyError(thrown, 'clock_runaway')).toBe(true);
  });
});

describe('createManualClock background timers', () => {
  it('counts background timers apart from the pending ones', () => {
    const clock = createManualClock();
    clock.setTimeout(() => {}, 10);
    clock.setTimeout(() => {}, 20, { background: true });
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.backgroundTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(10);
  });

  it('moves a timer between foreground and background without moving its due time', () => {
    const clock = createManualClock();
    const callback = vi.fn();
    const handle = clock.setTimeout(callback, 50);
    clock.setBackground(handle, true);
    clock.setBackground(handle, true);
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 1]);
    clock.setBackground(handle, false);
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([1, 0]);
    clock.setBackground(handle, true);
    clock.advance(50);
    expect(callback).toHaveBeenCalledOnce();
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 0]);
  });

  it('forgets a cleared background timer and ignores one that already fired', () => {
    const clock = createManualClock();
    const cleared = clock.setTimeout(() => {}, 10, { background: true });
    const fired = clock.setTimeout(() => {}, 5);
    clock.clearTimeout(cleared);
    clock.clearTimeout(cleared);
    clock.advance(5);
    clock.setBackground(fired, true);
    expect([clock.pendingTimers(), clock.backgroundTimers()]).toEqual([0, 0]);
  });
});

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads Date.now and schedules with the global timers', () => {
    vi.useFakeTimers({ now: 42 });
    expect(systemClock.now()).toBe(42);
    const callback = vi.fn();
    systemClock.setTimeout(callback, 10);
    vi.advanceTimersByTime(10);
    expect(callback).toHaveBeenCalledOnce();
  });

  it('clears a timer, and ignores undefined', () => {
    vi.useFakeTimers();
    const callback = vi.fn();
    const handle = systemClock.setTimeout(callback, 10);
    systemClock.clearTimeout(handle);
    systemClock.clearTimeout(undefined);
    vi.advanceTimersByTime(20);
    expect(callback).not.toHaveBeenCalled();
  });

  it('unrefs a background timer so it does not keep the process alive', () => {
    const handle = systemClock.setTimeout(() => {}, 60_000, { background: true });
    try {
      expect((handle as unknown as { hasRef(): boolean }).hasRef()).toBe(false);
    } finally {
      systemClock.clearTimeout(handle);
    }
    const foreground = systemClock.setTimeout(() => {}, 60_000);
    try {
      expect((foreground as unknown as { hasRef(): boolean }).hasRef()).toBe(true);
    } finally {
      systemClock.clearTimeout(foreground);
    }
  });

  it('moves a pending timer to the background and back without moving it', () => {
    const handle = systemClock.setTimeout(() => {}, 60_000);
    const timer = handle as unknown as { hasRef(): boolean };
    try {
      systemClock.setBackground?.(handle, true);
      expect(timer.hasRef()).toBe(false);
      systemClock.setBackground?.(handle, false);
      expect(timer.hasRef()).toBe(true);
    } finally {
      systemClock.clearTimeout(handle);
    }
  });

  it('clamps delays above the runtime maximum instead of firing at once', () => {
    vi.useFakeTimers();
    const callback = vi.fn();
    systemClock.setTimeout(callback, MAX_TIMEOUT_MS * 2);
    vi.advanceTimersByTime(1_000);
    expect(callback).not.toHaveBeenCalled();
  });
});

describe('assertTimeoutMs', () => {
  it('returns a sane timeout unchanged', () => {
    expect(assertTimeoutMs(1)).toBe(1);
    expect(assertTimeoutMs(MAX_TIMEOUT_MS)).toBe(MAX_TIMEOUT_MS);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, MAX_TIMEOUT_MS + 1, 2 ** 31, '100', undefined])(
    'refuses %s with invalid_timeout',
    (value) => {
      expect(() => assertTimeoutMs(value, 'timeoutMs')).toThrow(
        expect.objectContaining({
          code: 'invalid_timeout',
          details: expect.objectContaining({ name: 'timeoutMs' }),
        }),
      );
    },
  );
});

describe('createManualClock options (issue 19 hunt)', () => {
  it('[STORE-9] refuses a maxTimersPerRun or a start time that would switch its checks off', () => {
    for (const maxTimersPerRun of [Number.NaN, 0, -1, 1.5]) {
      expect(() => createManualClock({ maxTimersPerRun })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    expect(() => createManualClock({ now: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'invalid_argument', details: { now: 'NaN' } }),
    );
  });
});
