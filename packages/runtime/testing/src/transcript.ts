import type { Clock } from '@parley/core';

/**
 * Options of {@link createTranscript}.
 *
 * @example
 * ```ts
 * import { createFakeClock, type TranscriptOptions } from '@parley/testing';
 *
 * const options: TranscriptOptions = { clock: createFakeClock(), output: (line) => console.log(line), whoWidth: 14 };
 * ```
 */
export interface TranscriptOptions {
  /** Stamps each entry with `HH:MM:SS` (UTC) of its `now()`. */
  readonly clock: Pick<Clock, 'now'>;
  /** Receives each line as it is written (a terminal, a log). */
  readonly output?: (line: string) => void;
  /** Rewrites each line before it is kept or written (say, to mask credentials). */
  readonly redact?: (line: string) => string;
  /** The column width of `who` in {@link Transcript.entry}; 14 by default. */
  readonly whoWidth?: number;
}

/**
 * A readable, time-stamped transcript of a scripted run: what an example prints and what its test
 * reads back.
 *
 * @example
 * ```ts
 * import { createFakeClock, createTranscript, type Transcript } from '@parley/testing';
 *
 * const transcript: Transcript = createTranscript({ clock: createFakeClock() });
 * transcript.note('── scenario 1');
 * console.log(transcript.lines); // [ '── scenario 1' ]
 * ```
 */
export interface Transcript {
  /** Every line kept so far, in order. */
  readonly lines: readonly string[];
  /** A time-stamped entry; the lines after the first are indented past its stamp. */
  log(text: string): void;
  /** A time-stamped entry of one party: `who` in its own column (`lead`, `alice → lead`). */
  entry(who: string, text: string): void;
  /** Lines without a time stamp (headings, views, blank lines). */
  note(text: string): void;
}

/**
 * Creates a transcript on the injected clock: time-stamped entries (`09:00:05  lead  …`), notes,
 * each line kept in `lines` and written to `output` as it happens.
 *
 * Use it in examples and tests that tell a story on simulated time, instead of writing one more
 * transcript helper per example; the test asserts on `lines`.
 *
 * @example
 * ```ts
 * import { createFakeClock, createTranscript } from '@parley/testing';
 *
 * const clock = createFakeClock({ now: Date.UTC(2026, 3, 15, 9) });
 * const transcript = createTranscript({ clock });
 * transcript.entry('lead → alice', 'shutdown request req_1');
 * clock.advance(2_000);
 * transcript.log('alice approves\n(exits after saving)');
 * console.log(transcript.lines);
 * // [ '09:00:00  lead → alice   shutdown request req_1', '09:00:02  alice approves', '            (exits after saving)' ]
 * ```
 */
export function createTranscript(options: TranscriptOptions): Transcript {
  const { clock, output, redact } = options;
  const whoWidth = options.whoWidth ?? 14;
  const lines: string[] = [];
  const keep = (line: string): void => {
    const safe = redact === undefined ? line : redact(line);
    lines.push(safe);
    output?.(safe);
  };
  return {
    lines,
    log(text) {
      const [first = '', ...rest] = text.split('\n');
      const stamp = clockTime(clock.now());
      keep(`${stamp}  ${first}`);
      for (const more of rest) keep(`${' '.repeat(stamp.length + 4)}${more}`);
    },
    entry(who, text) {
      keep(`${clockTime(clock.now())}  ${who.padEnd(whoWidth)} ${text}`);
    },
    note(text) {
      for (const line of text.split('\n')) keep(line);
    },
  };
}

/**
 * `HH:MM:SS` of an epoch time, in UTC: the stamp of a transcript entry.
 *
 * @example
 * ```ts
 * import { clockTime } from '@parley/testing';
 *
 * console.log(clockTime(Date.UTC(2026, 3, 15, 9, 1, 30))); // 09:01:30
 * ```
 */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/**
 * A short, single-line rendering of a value for a transcript: its JSON, cut to `max` characters.
 *
 * @example
 * ```ts
 * import { brief } from '@parley/testing';
 *
 * console.log(brief({ reason: 'the work is done' })); // {"reason":"the work is done"}
 * console.log(brief('x'.repeat(20), 8)); // "xxxxxx…
 * ```
 */
export function brief(value: unknown, max = 90): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
