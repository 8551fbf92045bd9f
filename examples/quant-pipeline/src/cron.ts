// The pipeline's `trigger: cron "30 7 * * 1-5"`: parsed, described and its next run computed,
// so the demo can show the schedule; the demo itself runs on demand. Five fields (minute, hour,
// day of month, month, day of week), each `*`, a number, a range `a-b`, a list `a,b` or a step
// `*/n`. Times are UTC.

/** A parsed cron expression: the allowed values of each field. */
export interface CronSchedule {
  readonly source: string;
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[];
  readonly months: readonly number[];
  /** 0 = Sunday … 6 = Saturday (7 is read as Sunday too). */
  readonly daysOfWeek: readonly number[];
  readonly description: string;
}

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

/** Parses a five-field cron expression; refuses anything else with a message. */
export function parseCron(source: string): CronParseResult {
  const parts = source.trim().split(/\s+/);
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

/** The first time strictly after `after` (epoch ms) that the schedule fires, within a year. */
export function nextCronRun(schedule: CronSchedule, after: number): number | undefined {
  const start = Math.floor(after / 60_000) * 60_000 + 60_000;
  for (let at = start; at < start + 366 * 24 * 60 * 60_000; at += 60_000) {
    const d = new Date(at);
    if (
      schedule.minutes.includes(d.getUTCMinutes()) &&
      schedule.hours.includes(d.getUTCHours()) &&
      schedule.daysOfMonth.includes(d.getUTCDate()) &&
      schedule.months.includes(d.getUTCMonth() + 1) &&
      schedule.daysOfWeek.includes(d.getUTCDay())
    ) {
      return at;
    }
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
  const days =
    parts[4] === '*'
      ? 'every day'
      : isRun(schedule.daysOfWeek)
        ? `${DAY_NAMES[schedule.daysOfWeek[0] as number]} to ${DAY_NAMES[schedule.daysOfWeek.at(-1) as number]}`
        : schedule.daysOfWeek.map((d) => DAY_NAMES[d]).join(', ');
  const dates = parts[2] === '*' && parts[3] === '*' ? '' : `, day-of-month ${parts[2]}, month ${parts[3]}`;
  return `${time}, ${days}${dates}`;
}

function isRun(values: readonly number[]): boolean {
  return values.length > 1 && values.every((v, i) => i === 0 || v === (values[i - 1] as number) + 1);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
