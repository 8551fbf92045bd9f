import { type Clock, MAX_TIMEOUT_MS, systemClock, type TimerHandle } from '@parley/core';
import { type CronSchedule, nextCronRun, parseCron, previousCronRun } from './cron.js';
import { PipelineError } from './errors.js';

/**
 * Options of {@link createCronTrigger}.
 *
 * @example
 * ```ts
 * import type { CronTriggerOptions } from '@parley/pipeline';
 *
 * const options: CronTriggerOptions = { cron: '30 7 * * 1-5', onFire: (at) => console.log(at) };
 * ```
 */
export interface CronTriggerOptions {
  /** A cron expression or a parsed schedule. */
  readonly cron: string | CronSchedule;
  /**
   * Called with the scheduled time (epoch ms) each time the schedule fires. Times missed because
   * the timer fired late are not fired one by one: `fire` names the latest one and how many
   * earlier ones it stands for. A promise it returns is followed only for `onError`.
   */
  readonly onFire: (scheduledAt: number, fire: CronFire) => unknown;
  /**
   * Called when `onFire` throws or its promise rejects; the schedule goes on either way. Without
   * it, a throw leaves the timer callback as any uncaught error would, and a rejection is unhandled.
   */
  readonly onError?: (error: unknown, fire: CronFire) => void;
  /** The scheduler: timers are set on it, never globally; the system clock by default. */
  readonly clock?: Clock;
  /**
   * The scheduled time of the last fire the host handled (it stored it), for a restarted process:
   * when the schedule named a time after it that has passed, the trigger fires once for the latest
   * such time on a 0 ms timer (never inside `createCronTrigger`). Without it, times before the
   * trigger was created are not fired.
   */
  readonly since?: number;
}

/**
 * One firing of a cron trigger.
 *
 * @example
 * ```ts
 * import type { CronFire } from '@parley/pipeline';
 *
 * // The 07:30 run, fired at 07:31 by a late timer, standing in for no earlier time.
 * const fire: CronFire = { scheduledAt: Date.UTC(2026, 3, 10, 7, 30), firedAt: Date.UTC(2026, 3, 10, 7, 31), skipped: 0 };
 * ```
 */
export interface CronFire {
  /** The scheduled time fired: the latest one at or before `firedAt`. */
  readonly scheduledAt: number;
  /** The clock's time when it fired. */
  readonly firedAt: number;
  /**
   * Scheduled times before `scheduledAt` that were missed (a late timer, a process that was down)
   * and are not fired on their own; counted up to {@link MAX_COUNTED_SKIPS}.
   */
  readonly skipped: number;
}

/**
 * {@link CronFire.skipped} counts at most this many missed times.
 *
 * @example
 * ```ts
 * import { MAX_COUNTED_SKIPS } from '@parley/pipeline';
 *
 * console.log(MAX_COUNTED_SKIPS); // 10000
 * ```
 */
export const MAX_COUNTED_SKIPS = 10_000;

/**
 * A running cron trigger.
 *
 * @example
 * ```ts
 * import { createCronTrigger, type CronTrigger } from '@parley/pipeline';
 * import { createManualClock } from '@parley/core';
 *
 * const trigger: CronTrigger = createCronTrigger({ cron: '0 * * * *', onFire: () => {}, clock: createManualClock() });
 * trigger.stop();
 * ```
 */
export interface CronTrigger {
  /** The next time it fires, or `undefined` when stopped or never. */
  next(): number | undefined;
  /** Clears the timer; the trigger never fires again. */
  stop(): void;
}

/**
 * Fires `onFire` at each time a cron schedule names, on the injected clock (one timer at a time,
 * re-armed after each fire; waits longer than a timer allows are taken in steps).
 *
 * Use it for a pipeline's `trigger: cron "…"`: start a run in `onFire`. With a manual clock the
 * schedule is driven by `advance`, so a test never waits.
 *
 * @throws PipelineError `invalid_option` when the cron expression does not parse or `onFire` is not a function.
 * @example
 * ```ts
 * import { createManualClock } from '@parley/core';
 * import { createCronTrigger } from '@parley/pipeline';
 *
 * const clock = createManualClock({ now: Date.UTC(2026, 3, 10, 7, 0) });
 * const fired: string[] = [];
 * const trigger = createCronTrigger({
 *   cron: '30 7 * * 1-5',
 *   clock,
 *   onFire: (at) => fired.push(new Date(at).toISOString()),
 * });
 * clock.advance(30 * 60_000);
 * console.log(fired); // ['2026-04-10T07:30:00.000Z']
 * trigger.stop();
 * ```
 */
export function createCronTrigger(options: CronTriggerOptions): CronTrigger {
  const parsed =
    typeof options?.cron === 'string' ? parseCron(options.cron) : { ok: true as const, value: options?.cron };
  if (!parsed.ok) throw new PipelineError('invalid_option', `cron: ${parsed.message}`);
  if (typeof options.onFire !== 'function')
    throw new PipelineError('invalid_option', 'onFire must be a function');
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new PipelineError('invalid_option', 'onError must be a function');
  const since = options.since;
  if (since !== undefined && !Number.isFinite(since))
    throw new PipelineError('invalid_option', 'since must be a finite time in epoch ms');
  const schedule = parsed.value;
  const clock = options.clock ?? systemClock;
  let timer: TimerHandle | undefined;
  let nextAt: number | undefined;
  let stopped = false;

  const arm = (after: number): void => {
    nextAt = nextCronRun(schedule, after);
    if (nextAt !== undefined) wait();
  };
  const wait = (): void => {
    const at = nextAt as number;
    timer = clock.setTimeout(
      () => {
        timer = undefined;
        if (clock.now() < at) return wait(); // a long wait, taken in steps
        fire(at);
      },
      Math.min(Math.max(at - clock.now(), 0), MAX_TIMEOUT_MS),
    );
  };
  /** Fires the latest time from `first` on that has passed, standing for the earlier ones. */
  const fire = (first: number): void => {
    const firedAt = clock.now();
    const latest = Math.max(previousCronRun(schedule, firedAt) ?? first, first);
    let skipped = 0;
    for (let at = first; at < latest && skipped < MAX_COUNTED_SKIPS; skipped++)
      at = nextCronRun(schedule, at) ?? latest;
    arm(Math.max(latest, firedAt)); // armed first, so a throwing onFire does not stop the schedule
    const info: CronFire = { scheduledAt: latest, firedAt, skipped };
    const { onError } = options;
    if (onError === undefined) {
      void options.onFire(latest, info);
      return;
    }
    try {
      const done = options.onFire(latest, info) as PromiseLike<unknown> | undefined;
      if (typeof done?.then === 'function') done.then(undefined, (error: unknown) => onError(error, info));
    } catch (error) {
      onError(error, info);
    }
  };

  const missed = since === undefined ? undefined : nextCronRun(schedule, since);
  if (missed !== undefined && missed <= clock.now()) {
    nextAt = missed;
    timer = clock.setTimeout(() => {
      timer = undefined;
      fire(missed);
    }, 0);
  } else arm(clock.now());
  return {
    next: () => (stopped ? undefined : nextAt),
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
