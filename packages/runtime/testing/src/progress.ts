import { TestingError } from './errors.js';

/** How long {@link Progress.waitFor} waits, in real time, for progress before it fails: one minute. */
export const DEFAULT_STALL_MS = 60_000;
/** Most conditions {@link Progress.waitFor} holds at once. */
export const MAX_PROGRESS_WAITERS = 1_000;

/**
 * Options of {@link createProgress}.
 *
 * @example
 * ```ts
 * import type { ProgressOptions } from '@parley/testing';
 *
 * const options: ProgressOptions = { stallMs: 10 * 60_000 }; // a person types the answers
 * ```
 */
export interface ProgressOptions {
  /**
   * Real milliseconds a wait may go without its condition turning true before it rejects with
   * `stalled`; {@link DEFAULT_STALL_MS} by default. A watchdog against hangs, never a sleep: a
   * wait ends as soon as its condition holds.
   */
  readonly stallMs?: number;
}

/**
 * Event-driven waiting for a scripted run: the system under test calls `poke()` whenever something
 * happened (a reply sent, a prompt, a decision), and each pending `waitFor` re-checks its condition.
 *
 * @example
 * ```ts
 * import { createProgress, type Progress } from '@parley/testing';
 *
 * const progress: Progress = createProgress();
 * console.log(progress.waiting); // 0
 * ```
 */
export interface Progress {
  /** Re-checks every pending condition; resolves those that hold. Pass it as an `onProgress` callback. */
  poke(): void;
  /**
   * Resolves once `condition()` holds (at once if it already does), re-checked on each `poke`.
   * Rejects with `TestingError` `stalled`, naming `what`, when `stallMs` pass first.
   */
  waitFor(condition: () => boolean, what: string): Promise<void>;
  /** Conditions waited for now. */
  readonly waiting: number;
}

/**
 * Creates a {@link Progress}: waits that end when the system under test reports progress and its
 * condition holds, so a driver never sleeps, and a real-time watchdog that turns a hang into an
 * error naming what was awaited.
 *
 * Use it to drive a bot from a script or a test (`say`, then wait for the reply) without
 * assuming how many ticks the bot takes; the simulated clock stays the bot's own.
 *
 * @throws TestingError `invalid_argument` when `stallMs` is not a positive integer; `waitFor`
 * rejects with `invalid_argument` when more than {@link MAX_PROGRESS_WAITERS} waits are pending.
 * @example
 * ```ts
 * import { createProgress } from '@parley/testing';
 *
 * const progress = createProgress();
 * let replies = 0;
 * const replied = progress.waitFor(() => replies >= 1, 'the first reply');
 * replies++; // the bot replied…
 * progress.poke(); // …and says so
 * await replied;
 * console.log(progress.waiting); // 0
 * ```
 */
export function createProgress(options: ProgressOptions = {}): Progress {
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  if (!Number.isInteger(stallMs) || stallMs < 1) {
    throw new TestingError('invalid_argument', `stallMs must be a positive integer, got ${String(stallMs)}`);
  }
  const waiters = new Set<{ readonly condition: () => boolean; readonly resolve: () => void }>();
  return {
    poke() {
      for (const waiter of [...waiters]) {
        if (!waiter.condition()) continue;
        waiters.delete(waiter);
        waiter.resolve();
      }
    },
    waitFor(condition, what) {
      if (condition()) return Promise.resolve();
      if (waiters.size >= MAX_PROGRESS_WAITERS) {
        return Promise.reject(
          new TestingError('invalid_argument', `more than ${MAX_PROGRESS_WAITERS} waits are pending`),
        );
      }
      return new Promise<void>((resolve, reject) => {
        const watchdog = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new TestingError('stalled', `Stalled: still waiting for ${what}`, { details: { what, stallMs } }),
          );
        }, stallMs);
        const waiter = {
          condition,
          resolve: () => {
            clearTimeout(watchdog);
            resolve();
          },
        };
        waiters.add(waiter);
      });
    },
    get waiting() {
      return waiters.size;
    },
  };
}
