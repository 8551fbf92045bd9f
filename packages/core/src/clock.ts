import { CoreError } from './errors.js';
import { DeadlineHeap, type HeapItem } from './internal/heap.js';

declare const timerBrand: unique symbol;

/**
 * An opaque timer handle returned by {@link Clock.setTimeout}.
 *
 * @example
 * ```ts
 * import { systemClock, type TimerHandle } from '@parley/core';
 *
 * const handle: TimerHandle = systemClock.setTimeout(() => {}, 10);
 * systemClock.clearTimeout(handle);
 * ```
 */
export interface TimerHandle {
  readonly [timerBrand]: true;
}

/**
 * The source of time every Parley package takes as an option, so tests run on a manual clock.
 *
 * @example
 * ```ts
 * import type { Clock } from '@parley/core';
 *
 * function deadline(clock: Clock, timeoutMs: number): number {
 *   return clock.now() + timeoutMs;
 * }
 * ```
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `delayMs`. */
  setTimeout(callback: () => void, delayMs: number, options?: TimerOptions): TimerHandle;
  /** Cancels a timer; a handle already fired or cleared, or `undefined`, is ignored. */
  clearTimeout(handle: TimerHandle | undefined): void;
  /**
   * Turns a pending timer into background work, so it no longer keeps the process alive, or back
   * into foreground work, without moving it. Optional: a clock without it makes a
   * {@link DeadlineQueue} clear its idle timer and set a new one later instead of parking it.
   */
  setBackground?(handle: TimerHandle, background: boolean): void;
}

/**
 * Options of {@link Clock.setTimeout}.
 *
 * @example
 * ```ts
 * import { systemClock, type TimerOptions } from '@parley/core';
 *
 * const options: TimerOptions = { background: true };
 * systemClock.clearTimeout(systemClock.setTimeout(() => {}, 60_000, options));
 * ```
 */
export interface TimerOptions {
  /**
   * Housekeeping that must not keep a process alive on its own (audit retention, cache sweeps):
   * the system clock unrefs such timers where the runtime supports it. Waiting for a reply or a
   * person is never background work.
   */
  readonly background?: boolean;
}

/**
 * The largest delay a timer may have: 2^31 − 1 ms (about 24.8 days), past which JavaScript
 * runtimes fire timers at once.
 *
 * @example
 * ```ts
 * import { MAX_TIMEOUT_MS } from '@parley/core';
 *
 * console.log(MAX_TIMEOUT_MS); // 2147483647
 * ```
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The real clock: `Date.now()` and the global timers.
 *
 * @example
 * ```ts
 * import { systemClock } from '@parley/core';
 *
 * console.log(systemClock.now() > 0); // true
 * ```
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, delayMs, options) {
    const handle = globalThis.setTimeout(callback, Math.min(Math.max(delayMs, 0), MAX_TIMEOUT_MS));
    if (options?.background === true) (handle as { unref?: () => void }).unref?.(); // Node, Bun, Deno
    // The runtime's handle is opaque to callers; it only ever comes back to clearTimeout below.
    return handle as unknown as TimerHandle;
  },
  clearTimeout: (handle) => {
    if (handle !== undefined)
      globalThis.clearTimeout(handle as unknown as Parameters<typeof clearTimeout>[0]);
  },
  setBackground(handle, background) {
    // Node, Bun and Deno timers have ref/unref; elsewhere a timer never keeps anything alive.
    const timer = handle as unknown as { ref?: () => void; unref?: () => void };
    if (background) timer.unref?.();
    else timer.ref?.();
  },
};

/**
 * Checks a timeout given by a caller: a finite number of milliseconds, greater than zero and at
 * most {@link MAX_TIMEOUT_MS}, and returns it.
 *
 * Use it wherever a package accepts `timeoutMs`, so NaN, Infinity, zero, negative and overflowing
 * delays are refused at registration instead of firing at once.
 *
 * @throws CoreError `invalid_timeout` for any other value.
 * @example
 * ```ts
 * import { assertTimeoutMs } from '@parley/core';
 *
 * const ms = assertTimeoutMs(30_000, 'timeoutMs'); // 30000
 * ```
 */
export function assertTimeoutMs(value: unknown, name = 'timeoutMs'): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new CoreError(
      'invalid_timeout',
      `${name} must be a finite number of milliseconds in (0, ${MAX_TIMEOUT_MS}], got ${String(value)}`,
      { details: { name, value: typeof value === 'number' ? value : String(value) } },
    );
  }
  return value;
}

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
  /** How many background timers are pending (see {@link TimerOptions}). */
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
