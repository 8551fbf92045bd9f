import { createManualClock, type ManualClock, type ManualClockOptions, type TimerHandle } from '@parley/core';
import { TestingError } from './errors.js';
import { listLines, plural } from './internal/format.js';

/**
 * One timer still waiting on a {@link FakeClock}.
 *
 * @example
 * ```ts
 * import type { PendingTimer } from '@parley/testing';
 *
 * const timer: PendingTimer = { dueAt: 31_000, scheduledAt: 1_000, delayMs: 30_000 };
 * ```
 */
export interface PendingTimer {
  /** When it fires, epoch ms on the fake clock. */
  readonly dueAt: number;
  /** When it was set. */
  readonly scheduledAt: number;
  /** The delay it was set with (after clamping to ≥ 0). */
  readonly delayMs: number;
}

/**
 * Core's `ManualClock` with what a test needs on top: jump to the next timer, list the timers
 * still waiting, and fail loudly when one is left.
 *
 * @example
 * ```ts
 * import { createFakeClock, type FakeClock } from '@parley/testing';
 *
 * const clock: FakeClock = createFakeClock({ now: 1_000 });
 * clock.setTimeout(() => {}, 500);
 * console.log(clock.timers()); // [ { dueAt: 1500, scheduledAt: 1000, delayMs: 500 } ]
 * ```
 */
export interface FakeClock extends ManualClock {
  /**
   * Moves time to the next pending timer and fires the timers due then; returns the new time, or
   * `undefined` (time stands still) when no timer is pending.
   */
  advanceToNextTimer(): number | undefined;
  /** The timers still pending, soonest first (background timers, which keep nothing alive, are left out). */
  timers(): readonly PendingTimer[];
  /**
   * Throws `assertion_failed` when any timer is pending, listing when each is due.
   *
   * @throws TestingError `assertion_failed`.
   */
  assertNoPendingTimers(message?: string): void;
}

/**
 * Creates a {@link FakeClock}: core's manual clock (time moves only when the test says so) that
 * also tracks its timers, so a test can jump to the next deadline and check that nothing is left
 * running at the end.
 *
 * Pass it as the `clock` option of every Parley component in a test.
 *
 * @throws CoreError `clock_runaway`, `invalid_argument` from the manual clock it wraps.
 * @example
 * ```ts
 * import { createFakeClock } from '@parley/testing';
 *
 * const clock = createFakeClock({ now: 0 });
 * let fired = 0;
 * clock.setTimeout(() => fired++, 30_000);
 * console.log(clock.advanceToNextTimer(), fired); // 30000 1
 * clock.assertNoPendingTimers(); // passes: nothing is left
 * ```
 */
export function createFakeClock(options: ManualClockOptions = {}): FakeClock {
  const inner = createManualClock(options);
  const live = new Map<TimerHandle, PendingTimer>();
  /** Background timers: pending, but not counted or listed (they keep nothing alive). */
  const background = new Set<TimerHandle>();

  const clock: FakeClock = {
    ...inner,
    setTimeout(callback, delayMs, timerOptions) {
      const delay = Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0;
      const timer: PendingTimer = { dueAt: inner.now() + delay, scheduledAt: inner.now(), delayMs: delay };
      const handle = inner.setTimeout(
        () => {
          live.delete(handle);
          background.delete(handle);
          callback();
        },
        delay,
        timerOptions,
      );
      live.set(handle, timer);
      if (timerOptions?.background === true) background.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      if (handle === undefined) return;
      live.delete(handle);
      background.delete(handle);
      inner.clearTimeout(handle);
    },
    setBackground(handle, value) {
      if (!live.has(handle)) return;
      if (value) background.add(handle);
      else background.delete(handle);
      inner.setBackground(handle, value);
    },
    advanceToNextTimer() {
      return inner.runNext() ? inner.now() : undefined;
    },
    timers: () =>
      [...live]
        .filter(([handle]) => !background.has(handle))
        .map(([, timer]) => timer)
        .sort((a, b) => a.dueAt - b.dueAt),
    assertNoPendingTimers(message) {
      assertNoPendingTimers(clock, message);
    },
  };
  return clock;
}

/**
 * Throws when a manual clock still has pending timers: something a test started (a request, a
 * confirmation, a flow step) was never settled or closed.
 *
 * Works with a {@link FakeClock} (the message lists when each timer is due) and with core's plain
 * `createManualClock()` (the message gives the count and the next due time).
 *
 * @throws TestingError `assertion_failed`.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { assertNoPendingTimers } from '@parley/testing';
 *
 * const clock = createManualClock();
 * const timer = clock.setTimeout(() => {}, 1_000);
 * clock.clearTimeout(timer);
 * assertNoPendingTimers(clock); // passes
 * ```
 */
export function assertNoPendingTimers(clock: ManualClock, message?: string): void {
  const count = clock.pendingTimers();
  if (count === 0) return;
  const now = clock.now();
  const prefix = message === undefined ? '' : `${message}: `;
  const timers = isFakeClock(clock) ? clock.timers() : undefined;
  const list =
    timers === undefined
      ? `  the next is due at ${clock.nextTimerAt()} (in ${(clock.nextTimerAt() as number) - now} ms)`
      : listLines(
          timers.map(
            (t) => `due at ${t.dueAt} (in ${t.dueAt - now} ms; set at ${t.scheduledAt} for ${t.delayMs} ms)`,
          ),
        );
  throw new TestingError(
    'assertion_failed',
    `${prefix}expected no pending timers, but ${plural(count, 'timer')} ${count === 1 ? 'is' : 'are'} left (now ${now}):\n${list}`,
    { details: { pending: count, now, dueAt: timers?.map((t) => t.dueAt) ?? [clock.nextTimerAt()] } },
  );
}

function isFakeClock(clock: ManualClock): clock is FakeClock {
  return typeof (clock as Partial<FakeClock>).timers === 'function';
}
