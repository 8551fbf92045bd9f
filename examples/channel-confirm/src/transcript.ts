// The readable transcript: one entry per chat message, model proposal, interception, decision and
// tool outcome, stamped with the injected clock's time (UTC); continuation lines are indented.
import type { Clock } from '@parley/core';

export interface Transcript {
  readonly lines: readonly string[];
  /** A time-stamped entry. */
  log(text: string): void;
  /** A line without a time stamp (headings, blank lines). */
  note(text: string): void;
}

export function createTranscript(clock: Clock, output: (line: string) => void = () => {}): Transcript {
  const lines: string[] = [];
  return {
    lines,
    log(text) {
      const [first = '', ...rest] = text.split('\n');
      const stamp = clockTime(clock.now());
      for (const line of [
        `${stamp}  ${first}`,
        ...rest.map((more) => `${' '.repeat(stamp.length + 4)}${more}`),
      ]) {
        lines.push(line);
        output(line);
      }
    },
    note(text) {
      lines.push(text);
      output(text);
    },
  };
}

/** `HH:MM:SS` of an epoch time, in UTC. */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}
