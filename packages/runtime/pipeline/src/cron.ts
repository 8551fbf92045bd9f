/**
 * A parsed five-field cron expression (minute, hour, day of month, month, day of week; UTC).
 *
 * @example
 * ```ts
 * import { parseCron, type CronSchedule } from '@parley/pipeline';
 *
 * const parsed = parseCron('30 7 * * 1-5');
 * const schedule: CronSchedule | undefined = parsed.ok ? parsed.value : undefined;
 * console.log(schedule?.daysOfWeek); // [1, 2, 3, 4, 5]
 * ```
 */
export interface CronSchedule {
  readonly source: string;
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[];
  readonly months: readonly number[];
  /** 0 = Sunday … 6 = Saturday (7 is read as Sunday too). */
  readonly daysOfWeek: readonly number[];
  /** In words: `at 07:30 UTC, Monday to Friday`. */
  readonly description: string;
}

/**
 * The result of {@link parseCron}.
 *
 * @example
 * ```ts
 * import type { CronParseResult } from '@parley/pipeline';
 *
 * const bad: CronParseResult = { ok: false, message: 'minute: "60" is outside 0-59' };
 * ```
 */
export type CronParseResult =
  | { readonly ok: true; readonly value: CronSchedule }
  | { readonly ok: false; readonly message: string };

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * Parses a five-field cron expression: each field `*`, a number, a range `a-b`, a list `a,b` or a
 * step `*\/n`; refuses anything else with a message. As in crontab, when both the day of month and
 * the day of week are restricted (`0 9 1 * 1`), a day matching either one fires.
 *
 * Use it for a pipeline's `trigger`; {@link createCronTrigger} fires it on the injected clock.
 *
 * @example
 * ```ts
 * import { parseCron } from '@parley/pipeline';
 *
 * const cron = parseCron('30 7 * * 1-5');
 * console.log(cron.ok && cron.value.description); // at 07:30 UTC, Monday to Friday
 * console.log(parseCron('60 7 * * *')); // { ok: false, message: 'minute: "60" is outside 0-59' }
 * ```
 */
export function parseCron(source: string): CronParseResult {
  const parts = String(source).trim().split(/\s+/);
  if (parts.length !== 5)
    return { ok: false, message: `a cron expression has 5 fields, got ${parts.length}` };
  const values: number[][] = [];
  for (const [index, field] of FIELDS.entries()) {
    const parsed = parseField(parts[index] as string, field.min, field.max);
    if (typeof parsed === 'string') return { ok: false, message: `${field.name}: ${parsed}` };
    values.push(parsed);
  }
  const [minutes, hours, daysOfMonth, months, rawDays] = values as [
    number[],
    number[],
    number[],
    number[],
    number[],
  ];
  const daysOfWeek = [...new Set(rawDays.map((d) => d % 7))].sort((a, b) => a - b);
  const schedule = { source, minutes, hours, daysOfMonth, months, daysOfWeek };
  return { ok: true, value: { ...schedule, description: describe(schedule, parts) } };
}

/**
 * The first time strictly after `after` (epoch ms) at which the schedule fires, within 366 days;
 * `undefined` when it never does (`0 0 31 2 *`).
 *
 * @example
 * ```ts
 * import { nextCronRun, parseCron } from '@parley/pipeline';
 *
 * const cron = parseCron('30 7 * * 1-5');
 * const friday = Date.UTC(2026, 3, 10, 7, 30);
 * if (cron.ok) console.log(new Date(nextCronRun(cron.value, friday) ?? 0).toISOString()); // 2026-04-13T07:30:00.000Z
 * ```
 */
export function nextCronRun(schedule: CronSchedule, after: number): number | undefined {
  return scan(schedule, Math.floor(after / MINUTE) * MINUTE + MINUTE, 1);
}

/**
 * The latest time at or before `atOrBefore` (epoch ms) at which the schedule fires, within 366
 * days; `undefined` when there is none. A cron trigger uses it to find the time a late timer or a
 * restarted process missed.
 *
 * @example
 * ```ts
 * import { parseCron, previousCronRun } from '@parley/pipeline';
 *
 * const cron = parseCron('30 7 * * 1-5');
 * const sunday = Date.UTC(2026, 3, 12, 12, 0);
 * if (cron.ok) console.log(new Date(previousCronRun(cron.value, sunday) ?? 0).toISOString()); // 2026-04-10T07:30:00.000Z
 * ```
 */
export function previousCronRun(schedule: CronSchedule, atOrBefore: number): number | undefined {
  return scan(schedule, Math.floor(atOrBefore / MINUTE) * MINUTE, -1);
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * The first minute from `start` on, going forward (`1`) or back (`-1`) for at most 366 days, at
 * which the schedule fires. A day that does not match is skipped whole: to the next day's 00:00
 * going forward, to the day before's 23:59 going back.
 */
function scan(schedule: CronSchedule, start: number, direction: 1 | -1): number | undefined {
  const either = eitherDay(schedule);
  for (let at = start; Math.abs(at - start) < 366 * DAY; ) {
    const d = new Date(at);
    if (!dayMatches(schedule, d, either)) {
      const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      at = direction === 1 ? midnight + DAY : midnight - MINUTE;
      continue;
    }
    if (schedule.hours.includes(d.getUTCHours()) && schedule.minutes.includes(d.getUTCMinutes())) return at;
    at += direction * MINUTE;
  }
  return undefined;
}

function parseField(text: string, min: number, max: number): number[] | string {
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
    if (match === null) return `cannot read "${item}"`;
    const from = match[1] === '*' ? min : Number(match[2]);
    const to = match[1] === '*' ? max : match[3] === undefined ? from : Number(match[3]);
    const step = match[4] === undefined ? 1 : Number(match[4]);
    if (from < min || to > max || from > to || step < 1) return `"${item}" is outside ${min}-${max}`;
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return [...out].sort((a, b) => a - b);
}

function describe(schedule: Omit<CronSchedule, 'description' | 'source'>, parts: readonly string[]): string {
  const time =
    schedule.minutes.length === 1 && schedule.hours.length === 1
      ? `at ${pad(schedule.hours[0] as number)}:${pad(schedule.minutes[0] as number)} UTC`
      : `at minute ${parts[0]} of hour ${parts[1]} (UTC)`;
  const days = schedule.daysOfWeek;
  const run = days.length > 1 && days.every((v, i) => i === 0 || v === (days[i - 1] as number) + 1);
  const week = (parts[4] as string).startsWith('*')
    ? undefined
    : run
      ? `${DAY_NAMES[days[0] as number]} to ${DAY_NAMES[days.at(-1) as number]}`
      : days.map((d) => DAY_NAMES[d]).join(', ');
  const date = (parts[2] as string).startsWith('*') ? undefined : `day-of-month ${parts[2]}`;
  const when =
    week !== undefined && date !== undefined ? `${date} or ${week}` : (week ?? date ?? 'every day');
  return `${time}, ${when}${parts[3] === '*' ? '' : `, month ${parts[3]}`}`;
}

/**
 * Whether the schedule fires on the day of `d`. As in crontab, when both the day of month and the
 * day of week are restricted (their fields do not start with `*`), either one matching is enough.
 */
function dayMatches(schedule: CronSchedule, d: Date, either: boolean): boolean {
  if (!schedule.months.includes(d.getUTCMonth() + 1)) return false;
  const date = schedule.daysOfMonth.includes(d.getUTCDate());
  const weekday = schedule.daysOfWeek.includes(d.getUTCDay());
  return either ? date || weekday : date && weekday;
}

/** Both day fields restricted, read from the expression (a schedule built by hand: from its lists). */
function eitherDay(schedule: CronSchedule): boolean {
  const parts = typeof schedule.source === 'string' ? schedule.source.trim().split(/\s+/) : [];
  if (parts.length === 5)
    return !(parts[2] as string).startsWith('*') && !(parts[4] as string).startsWith('*');
  return schedule.daysOfMonth.length < 31 && schedule.daysOfWeek.length < 7;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
