import type { Clock } from '@parley/core';
import { TestingError } from '../errors.js';
import { defer } from './format.js';

/** How a fake answers one call: now, after `delayMs` on the clock, or never (until aborted). */
export interface AnswerPlan<T> {
  readonly run: () => T | Promise<T>;
  readonly delayMs?: number | undefined;
  readonly hang?: boolean | undefined;
}

/**
 * Runs a plan. A pending answer (delayed or hanging) rejects with `signal.reason` when the signal
 * aborts, as a real client does; an already aborted signal rejects at once.
 */
export function answer<T>(
  plan: AnswerPlan<T>,
  clock: Clock | undefined,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (signal?.aborted === true) return Promise.reject(signal.reason);
  const delayMs = plan.delayMs;
  if (plan.hang !== true && (delayMs === undefined || delayMs === 0)) {
    return new Promise<T>((resolve) => resolve(plan.run()));
  }
  const pending = defer<T>();
  const timer =
    plan.hang === true || delayMs === undefined
      ? undefined
      : (clock as Clock).setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          new Promise<T>((resolve) => resolve(plan.run())).then(pending.resolve, pending.reject);
        }, delayMs);
  function onAbort(): void {
    clock?.clearTimeout(timer);
    pending.reject(signal?.reason);
  }
  signal?.addEventListener('abort', onAbort, { once: true });
  return pending.promise;
}

/** Checks a scripted `delayMs`: a clock is needed, and the delay must be a finite number ≥ 0. */
export function checkDelay(owner: string, delayMs: number | undefined, clock: Clock | undefined): void {
  if (delayMs === undefined) return;
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new TestingError(
      'invalid_argument',
      `${owner}: delayMs must be a finite number ≥ 0, got ${delayMs}`,
      {
        details: { delayMs },
      },
    );
  }
  if (clock === undefined) {
    throw new TestingError(
      'clock_required',
      `${owner}: a delayed answer needs a clock; pass { clock } (e.g. createFakeClock()) when creating it`,
    );
  }
}
