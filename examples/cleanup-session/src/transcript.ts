// The readable transcript: who said what at which step, what the flow decided, and what the host did.
// Every line is redacted before it is kept or printed, so no credential reference can reach a log.
import type { Clock } from '@parley/core';
import { redactText } from './redact.js';

/** `bot` and `user` are the conversation; `flow` is a verdict of the flow; `host` a side effect. */
export type Speaker = 'bot' | 'user' | 'flow' | 'host' | 'system';

export interface Transcript {
  readonly lines: readonly string[];
  say(speaker: Speaker, step: string, text: string): void;
  /** A heading line (scenario titles). */
  heading(text: string): void;
}

export function createTranscript(clock: Clock, output: (line: string) => void = () => {}): Transcript {
  const lines: string[] = [];
  const keep = (line: string): void => {
    const safe = redactText(line);
    lines.push(safe);
    output(safe);
  };
  return {
    lines,
    say(speaker, step, text) {
      keep(`${clockTime(clock.now())}  ${step.padEnd(15)} ${speaker.padEnd(6)} ${text}`);
    },
    heading(text) {
      keep('');
      keep(`── ${text}`);
    },
  };
}

/** `HH:MM:SS` of an epoch time, in UTC. */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}
