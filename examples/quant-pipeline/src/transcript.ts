// The readable transcript: one line per message, spawn, refusal and decision, stamped with the
// injected clock's time (UTC), kept for the test and written to the output sink as it happens.
import type { Clock } from '@parley/core';

export interface Transcript {
  readonly lines: readonly string[];
  log(text: string): void;
}

export function createTranscript(clock: Clock, output: (line: string) => void = () => {}): Transcript {
  const lines: string[] = [];
  return {
    lines,
    log(text) {
      const line = `${clockTime(clock.now())}  ${text}`;
      lines.push(line);
      output(line);
    },
  };
}

/** `HH:MM:SS` of an epoch time, in UTC. */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}
