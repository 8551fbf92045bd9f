import { type Clock, MAX_TIMEOUT_MS, systemClock, type TimerHandle } from '@parley/core';
import { type CronSchedule, nextCronRun, parseCron } from './cron.js';
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
  /** Called with the scheduled time (epoch ms) each time the schedule fires. */
  readonly onFire: (scheduledAt: number) => void;
  /** The scheduler: timers are set on it, never globally; the system clock by default. */
  readonly clock?: Clock;
}

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
        arm(at);
        options.onFire(at);
      },
      Math.min(Math.max(at - clock.now(), 0), MAX_TIMEOUT_MS),
    );
  };
  arm(clock.now());
  return {
    next: () => (stopped ? undefined : nextAt),
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
