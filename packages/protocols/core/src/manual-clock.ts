import type { Clock, TimerHandle } from './clock.js';
import { CoreError } from './errors.js';
import { DeadlineHeap, type HeapItem } from './internal/heap.js';

/**
 * A clock whose time moves only when a test says so.
 *
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 *
 * const clock = createManualClock({ now: 0 });
 * clock.setTimeout(() => console.log('fired'), 100);
 * clock.advance(100); // prints "fired"
 * console.log(clock.pendingTimers()); // 0
 * ```
 */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void;
  /** Moves time forward to the absolute time `at` (never backwards). */
  advanceTo(at: number): void;
  /** Moves time to the next timer's due time and fires the timers due then; false when none is pending. */
  runNext(): boolean;
  /** Fires timers until none is left, including timers they schedule; returns how many fired. */
  runAll(): number;
  /**
   * How many foreground timers are pending: the ones that would keep a process alive. Background
   * timers (housekeeping, or a deadline queue's parked timer) fire harmlessly and are not counted,
   * so `pendingTimers() === 0` means nothing is left waiting.
   */
  pendingTimers(): number;
  /** How many background timers are pending (see `TimerOptions.background`). */
  backgroundTimers(): number;
  /** Moves a pending timer to the background or back; a fired or cleared one is ignored. */
  setBackground(handle: TimerHandle, background: boolean): void;
  /** When the next pending timer (foreground or background) fires, or `undefined`. */
  nextTimerAt(): number | undefined;
}

/**
 * Options for {@link createManualClock}.
 *
 * @example
 * ```ts
 * import type { ManualClockOptions } from '@parley/core';
 *
 * const options: ManualClockOptions = { now: Date.UTC(2026, 0, 1), maxTimersPerRun: 1000 };
 * ```
 */
export interface ManualClockOptions {
  /** Start time in epoch ms; 0 by default. */
  readonly now?: number;
  /** `runAll` and `advance` stop with `clock_runaway` after firing this many timers; 100 000 by default. */
  readonly maxTimersPerRun?: number;
}

/**
 * Creates a {@link ManualClock}: time stands still until `advance`, `advanceTo`, `runNext` or
 * `runAll` moves it, so every timeout is tested without sleeping.
 *
 * @throws CoreError `clock_runaway` when timers keep scheduling timers past `maxTimersPerRun`;
 * `invalid_argument` when asked to move backwards or by a non-finite amount, or created with a
 * `maxTimersPerRun` that is not an integer ≥ 1 or a `now` that is not finite.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 *
 * const clock = createManualClock();
 * let fired = false;
 * clock.setTimeout(() => { fired = true; }, 5_000);
 * clock.advance(4_999);
 * console.log(fired); // false
 * clock.advance(1);
 * console.log(fired); // true
 * ```
 */
export function createManualClock(options: ManualClockOptions = {}): ManualClock {
  let now = options.now ?? 0;
  let seq = 0;
  const limit = options.maxTimersPerRun ?? 100_000;
  // NaN would turn the runaway guard off, and a NaN start time every comparison with it.
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new CoreError('invalid_argument', `maxTimersPerRun must be an integer ≥ 1, got ${String(limit)}`, {
      details: { maxTimersPerRun: String(limit) },
    });
  }
  if (!Number.isFinite(now)) {
    throw new CoreError('invalid_argument', `now must be a finite number, got ${String(now)}`, {
      details: { now: String(now) },
    });
  }
  const heap = new DeadlineHeap<ManualTimer>();
  let background = 0;

  function runUntil(until: number): number {
    let fired = 0;
    for (let timer = heap.peek(); timer !== undefined && timer.at <= until; timer = heap.peek()) {
      if (++fired > limit) {
        throw new CoreError('clock_runaway', `More than ${limit} timers fired in one run`, {
          details: { limit },
        });
      }
      heap.remove(timer);
      if (timer.background) background--;
      if (timer.at > now) now = timer.at;
      timer.callback();
    }
    return fired;
  }

  function checkAmount(value: number, name: string): void {
    if (!Number.isFinite(value) || value < 0) {
      throw new CoreError('invalid_argument', `${name} must be a finite number ≥ 0, got ${value}`, {
        details: { [name]: value },
      });
    }
  }

  return {
    now: () => now,
    setTimeout(callback, delayMs, timerOptions) {
      const delay = Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0;
      const isBackground = timerOptions?.background === true;
      const timer: ManualTimer = {
        at: now + delay,
        seq: ++seq,
        index: -1,
        callback,
        background: isBackground,
      };
      heap.push(timer);
      if (isBackground) background++;
      return timer as unknown as TimerHandle; // the object is only ever given back to this clock
    },
    clearTimeout(handle) {
      if (handle === undefined) return;
      const timer = handle as unknown as ManualTimer;
      if (heap.remove(timer) && timer.background) background--;
    },
    setBackground(handle, value) {
      const timer = handle as unknown as ManualTimer;
      if (timer.index < 0 || timer.background === value) return; // fired, cleared, or unchanged
      timer.background = value;
      background += value ? 1 : -1;
    },
    advance(ms) {
      checkAmount(ms, 'ms');
      const until = now + ms;
      runUntil(until);
      now = until;
    },
    advanceTo(at) {
      checkAmount(at - now, 'at - now');
      runUntil(at);
      now = at;
    },
    runNext() {
      const at = heap.peek()?.at;
      return at !== undefined && runUntil(at) > 0;
    },
    runAll: () => runUntil(Number.POSITIVE_INFINITY),
    pendingTimers: () => heap.size - background,
    backgroundTimers: () => background,
    nextTimerAt: () => heap.peek()?.at,
  };
}

interface ManualTimer extends HeapItem {
  readonly callback: () => void;
  background: boolean;
}
