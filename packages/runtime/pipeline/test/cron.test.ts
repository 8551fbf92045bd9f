import { createManualClock, isParleyError, MAX_TIMEOUT_MS } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCronTrigger, nextCronRun, parseCron, previousCronRun } from '../src/index.js';

const FRIDAY = Date.UTC(2026, 3, 10, 7, 30);

describe('parseCron and nextCronRun', () => {
  it('reads ranges, lists and steps, and finds the next weekday run', () => {
    const cron = parseCron('30 7 * * 1-5');
    if (!cron.ok) throw new Error(cron.message);
    expect(new Date(nextCronRun(cron.value, FRIDAY) as number).toISOString()).toBe(
      '2026-04-13T07:30:00.000Z',
    );
    const every = parseCron('*/15 9,17 1 */3 0,7');
    if (!every.ok) throw new Error(every.message);
    expect(every.value).toMatchObject({
      minutes: [0, 15, 30, 45],
      hours: [9, 17],
      months: [1, 4, 7, 10],
      daysOfWeek: [0],
    });
    expect(every.value.description).toBe(
      'at minute */15 of hour 9,17 (UTC), day-of-month 1 or Sunday, month */3',
    );
    const daily = parseCron('0 6 * * *');
    expect(daily.ok && daily.value.description).toBe('at 06:00 UTC, every day');
    const monthly = parseCron('0 6 1 * *');
    expect(monthly.ok && monthly.value.description).toBe('at 06:00 UTC, day-of-month 1');
    const some = parseCron('0 6 * * 1,3');
    expect(some.ok && some.value.description).toBe('at 06:00 UTC, Monday, Wednesday');
  });

  it('fires on either day field when both are restricted, as crontab does', () => {
    const either = parseCron('0 9 1 * 1'); // the 1st of the month, and every Monday
    if (!either.ok) throw new Error(either.message);
    const friday = Date.UTC(2026, 4, 1, 9, 0); // 1 May 2026 is a Friday
    const runs: string[] = [];
    for (let at: number | undefined = friday - 1; runs.length < 3 && at !== undefined; ) {
      at = nextCronRun(either.value, at);
      if (at !== undefined) runs.push(new Date(at).toISOString().slice(0, 10));
    }
    expect(runs).toEqual(['2026-05-01', '2026-05-04', '2026-05-11']);
    expect(new Date(previousCronRun(either.value, Date.UTC(2026, 4, 3)) as number).toISOString()).toBe(
      '2026-05-01T09:00:00.000Z',
    );
    // A schedule built by hand (no five-field source) reads the restriction from its lists.
    const byHand = { ...either.value, source: 'by hand' };
    expect(new Date(nextCronRun(byHand, friday) as number).toISOString().slice(0, 10)).toBe('2026-05-04');
    const onlyMondays = { ...byHand, daysOfMonth: Array.from({ length: 31 }, (_, i) => i + 1) };
    expect(new Date(nextCronRun(onlyMondays, friday) as number).toISOString().slice(0, 10)).toBe(
      '2026-05-04',
    );
    expect(nextCronRun({ ...onlyMondays, daysOfWeek: [] }, friday)).toBeUndefined();
  });

  it('refuses fields out of range or unreadable, and never finds an impossible date', () => {
    expect(parseCron('60 7 * * *')).toEqual({ ok: false, message: 'minute: "60" is outside 0-59' });
    expect(parseCron('30 7 * * mon')).toEqual({ ok: false, message: 'day of week: cannot read "mon"' });
    expect(parseCron('30 7 * *')).toEqual({ ok: false, message: 'a cron expression has 5 fields, got 4' });
    const never = parseCron('0 0 31 2 *');
    expect(never.ok && nextCronRun(never.value, FRIDAY)).toBeUndefined();
  });
});

describe('createCronTrigger', () => {
  it('fires on the injected clock at each scheduled time, and never after stop', () => {
    const clock = createManualClock({ now: FRIDAY - 1 });
    const fired: number[] = [];
    const trigger = createCronTrigger({ cron: '30 7 * * 1-5', clock, onFire: (at) => fired.push(at) });
    expect(trigger.next()).toBe(FRIDAY);
    clock.advance(1);
    expect(fired).toEqual([FRIDAY]);
    expect(trigger.next()).toBe(Date.UTC(2026, 3, 13, 7, 30)); // Monday
    clock.advanceTo(Date.UTC(2026, 3, 14, 8, 0));
    expect(fired.map((at) => new Date(at).toISOString().slice(0, 10))).toEqual([
      '2026-04-10',
      '2026-04-13',
      '2026-04-14',
    ]);
    trigger.stop();
    expect(trigger.next()).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('takes a wait longer than a timer allows in steps', () => {
    const clock = createManualClock({ now: Date.UTC(2026, 0, 2) });
    const fired: number[] = [];
    const parsed = parseCron('0 0 1 1 *');
    if (!parsed.ok) throw new Error('invalid');
    const trigger = createCronTrigger({ cron: parsed.value, clock, onFire: (at) => fired.push(at) });
    clock.advance(MAX_TIMEOUT_MS);
    expect(fired).toEqual([]);
    clock.advanceTo(Date.UTC(2027, 0, 1));
    expect(fired).toEqual([Date.UTC(2027, 0, 1)]);
    trigger.stop();
  });

  it('sets no timer for a schedule that never fires', () => {
    const clock = createManualClock();
    const trigger = createCronTrigger({ cron: '0 0 31 2 *', clock, onFire: () => {} });
    expect(trigger.next()).toBeUndefined();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses an unreadable expression or a missing onFire', () => {
    const invalid = (f: () => unknown): boolean => {
      try {
        f();
      } catch (error) {
        return isParleyError(error, 'invalid_argument');
      }
      return false;
    };
    expect(invalid(() => createCronTrigger({ cron: 'soon', onFire: () => {} }))).toBe(true);
    expect(invalid(() => createCronTrigger({ cron: '* * * * *', onFire: undefined as never }))).toBe(true);
  });
});
