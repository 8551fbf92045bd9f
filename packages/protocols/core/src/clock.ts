import { CoreError } from './errors.js';

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
