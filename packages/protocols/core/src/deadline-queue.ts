import type { Clock, TimerHandle } from './clock.js';
import { DeadlineHeap, type HeapItem } from './internal/heap.js';

/**
 * A handle to a deadline added to a {@link DeadlineQueue}.
 *
 * @example
 * ```ts
 * import { createDeadlineQueue, systemClock, type DeadlineHandle } from '@parley/core';
 *
 * const queue = createDeadlineQueue({ clock: systemClock });
 * const handle: DeadlineHandle = queue.add(Date.now() + 1000, () => {});
 * queue.remove(handle);
 * ```
 */
export interface DeadlineHandle {
  /** The absolute time (epoch ms) at which the callback runs. */
  readonly at: number;
}

/**
 * Many deadlines on one clock timer: the timer is always set for the earliest deadline only.
 *
 * @example
 * ```ts
 * import { createDeadlineQueue, createManualClock } from '@parley/core';
 *
 * const clock = createManualClock();
 * const queue = createDeadlineQueue({ clock });
 * queue.add(100, () => console.log('first'));
 * queue.add(200, () => console.log('second'));
 * console.log(clock.pendingTimers()); // 1
 * ```
 */
export interface DeadlineQueue {
  /**
   * Runs `callback(value)` at the absolute time `at` (on the clock's next tick if it is past, or
   * NaN: a corrupt deadline fails closed). Pass one shared callback and a per-entry `value` instead
   * of a closure per entry to keep entries small.
   */
  add<T = undefined>(at: number, callback: (value: T) => void, value?: T): DeadlineHandle;
  /** Removes a deadline; returns false when it already ran or was removed. */
  remove(handle: DeadlineHandle): boolean;
  /** How many deadlines are waiting. */
  readonly size: number;
  /** Drops every deadline without running it and clears the clock timer. */
  clear(): void;
}

/**
 * Options for {@link createDeadlineQueue}.
 *
 * @example
 * ```ts
 * import { systemClock, type DeadlineQueueOptions } from '@parley/core';
 *
 * const options: DeadlineQueueOptions = { clock: systemClock };
 * ```
 */
export interface DeadlineQueueOptions {
  readonly clock: Clock;
  /** Its timer is housekeeping that must not keep the process alive (see `TimerOptions`). */
  readonly background?: boolean;
}

/**
 * Creates a {@link DeadlineQueue}: absolute deadlines kept in a heap, served by a single timer.
 *
 * Use it when a component tracks many timeouts (pending requests, confirmations): it keeps one
 * clock timer instead of one per entry, so memory per entry stays small and closing is cheap.
 * Deadlines are absolute, so an entry restored from storage fires at its original time. A
 * callback that throws does not stop the others; the first error is rethrown after the batch.
 * When the last deadline is removed, a clock with `setBackground` keeps the timer as background
 * work (it no longer holds the process open, and fires harmlessly), so a queue that empties and
 * fills again, one request at a time, reuses it instead of paying for a new timer each time.
 * `clear()` removes the timer too.
 *
 * @example
 * ```ts
 * import { createDeadlineQueue, createManualClock } from '@parley/core';
 *
 * const clock = createManualClock({ now: 0 });
 * const queue = createDeadlineQueue({ clock });
 * const handle = queue.add(1_000, () => console.log('expired'));
 * clock.advance(1_000); // prints "expired"
 * console.log(queue.remove(handle), clock.pendingTimers()); // false 0
 * ```
 */
export function createDeadlineQueue(options: DeadlineQueueOptions): DeadlineQueue {
  const { clock } = options;
  const isBackground = options.background === true;
  const timerOptions = isBackground ? { background: true } : undefined;
  const heap = new DeadlineHeap<Deadline>();
  let seq = 0;
  let timer: TimerHandle | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  /** The timer outlived the last deadline: it is background work now, and fires harmlessly. */
  let parked = false;

  function arm(at: number): void {
    clock.clearTimeout(timer);
    parked = false;
    timerAt = at;
    timer = clock.setTimeout(fire, Math.max(0, at - clock.now()), timerOptions);
  }

  /** Leaves the timer of an empty queue in place as background work, where the clock allows it. */
  function idle(): void {
    if (timer === undefined || parked) return;
    if (clock.setBackground === undefined) {
      clock.clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    parked = true;
    if (!isBackground) clock.setBackground(timer, true);
  }

  function fire(): void {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    parked = false;
    const now = clock.now();
    let failure: { error: unknown } | undefined;
    for (let next = heap.peek(); next !== undefined && next.at <= now; next = heap.peek()) {
      heap.remove(next);
      try {
        next.callback(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
    // A callback may have armed a timer for a later deadline it added: the earliest decides.
    const next = heap.peek();
    if (next !== undefined && next.at < timerAt) arm(next.at);
    if (failure !== undefined) throw failure.error;
  }

  return {
    add(given, callback, value) {
      // A deadline that is not a number (NaN from a corrupt record) is due now: it fails closed, and
      // it cannot sit at the top of the heap, compare with nothing and hold back every other one.
      const at = typeof given === 'number' && !Number.isNaN(given) ? given : clock.now();
      // Each entry stores its own callback and value; the types are checked at the public signature.
      const deadline: Deadline = {
        at,
        seq: ++seq,
        index: -1,
        callback: callback as (value: unknown) => void,
        value,
      };
      heap.push(deadline);
      if (at < timerAt) arm(at);
      else if (parked) {
        // A timer due no later than this deadline is reused: it fires, finds nothing due and re-arms.
        parked = false;
        if (!isBackground) clock.setBackground?.(timer as TimerHandle, false);
      }
      return deadline;
    },
    remove(handle) {
      const removed = heap.remove(handle as Deadline);
      if (removed && heap.size === 0) idle();
      return removed;
    },
    get size() {
      return heap.size;
    },
    clear() {
      heap.clear();
      clock.clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      parked = false;
    },
  };
}

interface Deadline extends HeapItem, DeadlineHandle {
  at: number;
  readonly callback: (value: unknown) => void;
  readonly value: unknown;
}
