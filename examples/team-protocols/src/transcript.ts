// The readable transcript: every message on the wire (with its request_id), every settlement and
// refusal, and what the host did about it, stamped with the injected clock's time (UTC).
import type { Clock } from '@parley/core';

export interface Transcript {
  readonly lines: readonly string[];
  /** A time-stamped line: `who` is the party speaking or acting (`lead`, `alice`, `lead → bob`). */
  log(who: string, text: string): void;
  /** A line without a time stamp (headings, views, blank lines). */
  note(text: string): void;
}

export function createTranscript(clock: Clock, output: (line: string) => void = () => {}): Transcript {
  const lines: string[] = [];
  const keep = (line: string): void => {
    lines.push(line);
    output(line);
  };
  return {
    lines,
    log(who, text) {
      keep(`${clockTime(clock.now())}  ${who.padEnd(14)} ${text}`);
    },
    note(text) {
      for (const line of text.split('\n')) keep(line);
    },
  };
}

/** `HH:MM:SS` of an epoch time, in UTC. */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/** A short, single-line rendering of a payload or response for the transcript. */
export function brief(value: unknown, max = 90): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
