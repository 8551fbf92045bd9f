import type { Clock, Store } from '@parley/core';
import type { CronSchedule } from './cron.js';

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
   * Called when `onFire` throws or its promise rejects, and with `store` when a claim could not be
   * made (`store_failed`, `corrupt_record`; `fire` is absent for the read when the trigger starts);
   * the schedule goes on either way. Required with `store`. Without it, a throw leaves the timer
   * callback as any uncaught error would, and a rejection is unhandled.
   */
  readonly onError?: (error: unknown, fire?: CronFire) => void;
  /** The scheduler: timers are set on it, never globally; the system clock by default. */
  readonly clock?: Clock;
  /**
   * The scheduled time of the last fire the host handled (it stored it), for a restarted process:
   * when the schedule named a time after it that has passed, the trigger fires once for the latest
   * such time on a 0 ms timer (never inside `createCronTrigger`). Without it, times before the
   * trigger was created are not fired.
   */
  readonly since?: number;
  /**
   * Where the trigger records the latest time it fired, at `key`, so that several processes running
   * the same trigger fire each scheduled time once between them, and a restarted process catches up
   * from the record (`since` counts only while there is none). A time fires in this process only
   * after it claimed that time in the record by compare-and-set; a claim lost to another process
   * fires nothing here. A store that fails or a record this version cannot read (corrupt, written
   * by another version; it is left as it is) fires nothing and goes to `onError` as a
   * {@link PipelineError} `store_failed` or `corrupt_record`: the trigger never fires a time twice
   * to make up for a store it cannot trust. A process that dies after its claim and before
   * `onFire` ran loses that time (at most once), so start work keyed by the scheduled time.
   */
  readonly store?: Store;
  /** The record's key in `store`: 1 to {@link MAX_CRON_KEY_LENGTH} characters; required with `store`. */
  readonly key?: string;
}

/**
 * The longest {@link CronTriggerOptions.key}.
 *
 * @example
 * ```ts
 * import { MAX_CRON_KEY_LENGTH } from '@parley/pipeline';
 *
 * console.log(MAX_CRON_KEY_LENGTH); // 256
 * ```
 */
export const MAX_CRON_KEY_LENGTH = 256;

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
  /**
   * Clears the timer; the trigger never fires again. A claim being written when it is called is
   * given back in the store, so another process can fire that time.
   */
  stop(): void;
  /** Resolves once no claim (a read or write of the store record) is in flight. */
  idle(): Promise<void>;
}
