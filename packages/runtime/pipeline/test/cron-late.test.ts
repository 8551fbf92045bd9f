// A cron trigger whose timer fires late (a sleeping laptop, a blocked event loop) or whose process
// was down at a scheduled time: missed times are fired once, coalesced, never as a burst.
import { type Clock, createManualClock, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type CronFire, createCronTrigger, previousCronRun, parseCron } from '../src/index.js';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 3, 10, 0, 0);

/** A manual clock whose `now` can jump ahead without firing timers: a timer then fires late. */
function lateClock(now: number) {
  const manual = createManualClock({ now });
  let skew = 0;
  const clock: Clock = {
    now: () => manual.now() + skew,
    setTimeout: (fn, ms, options) => manual.setTimeout(fn, ms, options),
    clearTimeout: (handle) => manual.clearTimeout(handle),
  };
  return { clock, manual, sleep: (ms: number) => (skew += ms) };
}

describe('createCronTrigger on a timer that fires late', () => {
  it('fires once for the latest missed time, counts the skipped ones, and re-arms after now', () => {
    const { clock, manual, sleep } = lateClock(START + 30 * 60_000);
    const fires: CronFire[] = [];
    const trigger = createCronTrigger({ cron: '0 * * * *', clock, onFire: (_at, fire) => fires.push(fire) });
    sleep(72 * HOUR); // the machine sleeps three days; the 01:00 timer fires when it wakes
    manual.advance(30 * 60_000);
    expect(fires).toEqual([{ scheduledAt: START + 73 * HOUR, firedAt: START + 73 * HOUR, skipped: 72 }]);
    expect(trigger.next()).toBe(START + 74 * HOUR);
    manual.advance(HOUR);
    expect(fires).toHaveLength(2);
    expect(fires[1]).toMatchObject({ skipped: 0 });
    trigger.stop();
  });

  it('passes the scheduled time first, as before, and fires on time with nothing skipped', () => {
    const clock = createManualClock({ now: START });
    const calls: [number, CronFire][] = [];
    const trigger = createCronTrigger({
      cron: '0 * * * *',
      clock,
      onFire: (at, fire) => calls.push([at, fire]),
    });
    clock.advance(HOUR);
    expect(calls).toEqual([[START + HOUR, { scheduledAt: START + HOUR, firedAt: START + HOUR, skipped: 0 }]]);
    trigger.stop();
  });
});

describe('createCronTrigger after a restart (`since`)', () => {
  it('fires once, soon after it starts, for times missed since the last one the host handled', () => {
    const clock = createManualClock({ now: START + 5 * HOUR + 10 * 60_000 });
    const fires: CronFire[] = [];
    const trigger = createCronTrigger({
      cron: '0 * * * *',
      clock,
      since: START + HOUR, // the host stored that the 01:00 run was handled
      onFire: (_at, fire) => fires.push(fire),
    });
    expect(fires).toEqual([]); // never inside createCronTrigger: the caller holds the trigger first
    clock.advance(0);
    expect(fires).toEqual([
      { scheduledAt: START + 5 * HOUR, firedAt: START + 5 * HOUR + 10 * 60_000, skipped: 3 },
    ]);
    expect(trigger.next()).toBe(START + 6 * HOUR);
    trigger.stop();
  });

  it('fires nothing extra when nothing was missed since', () => {
    const clock = createManualClock({ now: START + 5 * HOUR + 10 * 60_000 });
    const fires: number[] = [];
    const trigger = createCronTrigger({
      cron: '0 * * * *',
      clock,
      since: START + 5 * HOUR,
      onFire: (at) => fires.push(at),
    });
    clock.advance(50 * 60_000);
    expect(fires).toEqual([START + 6 * HOUR]);
    trigger.stop();
  });

  it('lets stop() before the catch-up timer cancel it', () => {
    const clock = createManualClock({ now: START + 5 * HOUR });
    const fires: number[] = [];
    const trigger = createCronTrigger({
      cron: '0 * * * *',
      clock,
      since: START,
      onFire: (at) => fires.push(at),
    });
    trigger.stop();
    clock.advance(10 * HOUR);
    expect(fires).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses a `since` that is not a finite time', () => {
    for (const since of [Number.NaN, Number.POSITIVE_INFINITY, '1' as never]) {
      let error: unknown;
      try {
        createCronTrigger({ cron: '0 * * * *', since, onFire: () => {} });
      } catch (caught) {
        error = caught;
      }
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
  });
});

describe('createCronTrigger when onFire fails', () => {
  it('hands a throw and a rejection to onError, and keeps the schedule', async () => {
    const clock = createManualClock({ now: START });
    const errors: [string, number][] = [];
    let calls = 0;
    const trigger = createCronTrigger({
      cron: '0 * * * *',
      clock,
      onFire: (at) => {
        calls++;
        if (calls === 1) throw new Error(`threw at ${at}`);
        return Promise.reject(new Error('rejected'));
      },
      onError: (error, fire) => errors.push([(error as Error).message, fire?.scheduledAt ?? Number.NaN]),
    });
    clock.advance(HOUR);
    clock.advance(HOUR);
    await Promise.resolve();
    expect(errors).toEqual([
      [`threw at ${START + HOUR}`, START + HOUR],
      ['rejected', START + 2 * HOUR],
    ]);
    expect(trigger.next()).toBe(START + 3 * HOUR);
    trigger.stop();
  });

  it('without onError, a throw leaves the timer callback and the schedule stays armed', () => {
    const clock = createManualClock({ now: START });
    const trigger = createCronTrigger({
      cron: '0 * * * *',
      clock,
      onFire: () => {
        throw new Error('boom');
      },
    });
    expect(() => clock.advance(HOUR)).toThrow('boom');
    expect(trigger.next()).toBe(START + 2 * HOUR);
    trigger.stop();
  });

  it('refuses an onError that is not a function', () => {
    let error: unknown;
    try {
      createCronTrigger({ cron: '0 * * * *', onFire: () => {}, onError: 'log' as never });
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });
});

describe('previousCronRun', () => {
  it('finds the latest time at or before a moment, within 366 days', () => {
    const weekdays = parseCron('30 7 * * 1-5');
    if (!weekdays.ok) throw new Error(weekdays.message);
    const sunday = Date.UTC(2026, 3, 12, 12, 0);
    expect(new Date(previousCronRun(weekdays.value, sunday) as number).toISOString()).toBe(
      '2026-04-10T07:30:00.000Z',
    );
    const friday = Date.UTC(2026, 3, 10, 7, 30);
    expect(previousCronRun(weekdays.value, friday)).toBe(friday); // at or before
    const never = parseCron('0 0 31 2 *');
    if (!never.ok) throw new Error(never.message);
    expect(previousCronRun(never.value, sunday)).toBeUndefined();
  });
});
