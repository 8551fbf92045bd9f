// The readable transcript, on @parley/testing's `createTranscript`: who said what at which step,
// what the flow decided, and what the host did. Every line is redacted before it is kept or printed,
// so no credential reference can reach a log.
import type { Clock } from '@parley/core';
import { createTranscript as createBaseTranscript } from '@parley/testing';
import { redactText } from './redact.js';

/** `bot` and `user` are the conversation; `flow` is a verdict of the flow; `host` a side effect. */
export type Speaker = 'bot' | 'user' | 'flow' | 'host' | 'system';

export interface Transcript {
  readonly lines: readonly string[];
  say(speaker: Speaker, step: string, text: string): void;
  /** A heading line (scenario titles). */
  heading(text: string): void;
}

export function createTranscript(clock: Clock, output?: (line: string) => void): Transcript {
  const base = createBaseTranscript({ clock, redact: redactText, whoWidth: 22, ...(output && { output }) });
  return {
    lines: base.lines,
    say: (speaker, step, text) => base.entry(`${step.padEnd(15)} ${speaker}`, text),
    heading: (text) => base.note(`\n── ${text}`),
  };
}
