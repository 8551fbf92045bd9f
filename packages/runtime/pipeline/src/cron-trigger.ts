import { createKernel, type Kernel, MAX_TIMEOUT_MS, systemClock, type TimerHandle } from '@parley/core';
import { type CronSchedule, nextCronRun, parseCron, previousCronRun } from './cron.js';
import {
  type CronFire,
  type CronTrigger,
  type CronTriggerOptions,
  MAX_COUNTED_SKIPS,
  MAX_CRON_KEY_LENGTH,
} from './cron-trigger-types.js';
import { PipelineError } from './errors.js';
import { claimCronTime, readCronRecord, releaseCronClaim } from './internal/cron-claim.js';

/**
 * Fires `onFire` at each time a cron schedule names, on the injected clock (one timer at a time,
 * re-armed after each fire; waits longer than a timer allows are taken in steps).
 *
 * Use it for a pipeline's `trigger: cron "…"`: start a run in `onFire`. With a manual clock the
 * schedule is driven by `advance`, so a test never waits.
 *
 * With `store` and `key` several processes can run the same trigger: each scheduled time fires in
 * the one process that claimed it in the store first (see {@link CronTriggerOptions.store}).
 *
 * @throws PipelineError `invalid_argument` when the cron expression does not parse, `onFire` or
 *   `onError` is not a function, `since` is not a finite time, or `store` comes without `key` and
 *   `onError` (or `key` without `store`, or a key of 0 or over 256 characters).
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
  const schedule = checkedSchedule(options);
  const { since, store, key } = options;
  const clock = options.clock ?? systemClock;
  const kernel = store === undefined ? undefined : createKernel({ store, clock });
  let timer: TimerHandle | undefined;
  let nextAt: number | undefined;
  let reading: TimerHandle | undefined;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  const arm = (after: number): void => {
    clock.clearTimeout(timer); // a catch-up fire replaces the time armed at the start
    timer = undefined;
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
  const track = (work: Promise<void>): void => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
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
    if (kernel === undefined || key === undefined) deliver(options, info);
    else track(claimThenDeliver(info, kernel, key));
  };
  const claimThenDeliver = async (info: CronFire, on: Kernel, recordKey: string): Promise<void> => {
    const claim = await claimCronTime(on, recordKey, info.scheduledAt, info.firedAt, () => stopped);
    if (claim === 'lost' || claim === 'stopped') return;
    if (claim instanceof PipelineError) return report(options, claim, info);
    if (!stopped) return deliver(options, info);
    const failed = await releaseCronClaim(on, recordKey, claim); // stopped while writing: give it back
    if (failed !== undefined) report(options, failed, info);
  };
  if (kernel === undefined || key === undefined) {
    const missed = since === undefined ? undefined : nextCronRun(schedule, since);
    if (missed !== undefined && missed <= clock.now()) {
      nextAt = missed;
      timer = clock.setTimeout(() => {
        timer = undefined;
        fire(missed);
      }, 0);
    } else arm(clock.now());
  } else {
    arm(clock.now());
    // The record says where to catch up from: read on a 0 ms timer (never in here), then a time
    // missed since the record's is fired once (a claim stops any second fire of it).
    reading = clock.setTimeout(() => {
      reading = undefined;
      track(
        readCronRecord(kernel, key).then((read) => {
          if (stopped) return;
          if (!read.ok) return report(options, read.error);
          const from = read.scheduledAt ?? since;
          const missed = from === undefined ? undefined : nextCronRun(schedule, from);
          if (missed !== undefined && missed <= clock.now()) fire(missed);
        }),
      );
    }, 0);
  }
  return {
    next: () => (stopped ? undefined : nextAt),
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
      clock.clearTimeout(reading);
      timer = undefined;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}

/** The schedule of `options`, its options checked. */
function checkedSchedule(options: CronTriggerOptions): CronSchedule {
  const parsed =
    typeof options?.cron === 'string' ? parseCron(options.cron) : { ok: true as const, value: options?.cron };
  if (!parsed.ok) throw new PipelineError('invalid_argument', `cron: ${parsed.message}`);
  if (typeof options.onFire !== 'function')
    throw new PipelineError('invalid_argument', 'onFire must be a function');
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new PipelineError('invalid_argument', 'onError must be a function');
  const { since } = options;
  if (since !== undefined && !Number.isFinite(since))
    throw new PipelineError('invalid_argument', 'since must be a finite time in epoch ms');
  checkStore(options);
  return parsed.value;
}

function report(options: CronTriggerOptions, error: PipelineError, info?: CronFire): void {
  options.onError?.(error, info);
}

/** Calls `onFire`; with `onError`, a throw or a rejection of it is reported there. */
function deliver(options: CronTriggerOptions, info: CronFire): void {
  const { onError } = options;
  if (onError === undefined) {
    void options.onFire(info.scheduledAt, info);
    return;
  }
  try {
    const done = options.onFire(info.scheduledAt, info) as PromiseLike<unknown> | undefined;
    if (typeof done?.then === 'function') done.then(undefined, (error: unknown) => onError(error, info));
  } catch (error) {
    onError(error, info);
  }
}

/** `store`, `key` and `onError` come together, and the key has a length the record can keep. */
function checkStore({ store, key, onError }: CronTriggerOptions): void {
  if (store === undefined && key === undefined) return;
  if (store === undefined) throw new PipelineError('invalid_argument', 'key is given without a store');
  if (typeof store.compareAndSet !== 'function' || typeof store.getEntry !== 'function')
    throw new PipelineError('invalid_argument', 'store must be a Store (getEntry, compareAndSet)');
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_CRON_KEY_LENGTH)
    throw new PipelineError(
      'invalid_argument',
      `key must be a string of 1 to ${MAX_CRON_KEY_LENGTH} characters with a store`,
      { details: { length: typeof key === 'string' ? key.length : undefined } },
    );
  if (onError === undefined)
    throw new PipelineError(
      'invalid_argument',
      'onError is required with a store: a claim that fails is reported there',
    );
}
