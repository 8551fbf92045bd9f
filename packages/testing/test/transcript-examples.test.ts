// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// The TSDoc @examples of transcript.ts, compiled and run; each console.log is an assertion here.
import { describe, expect, it } from 'vitest';
import {
  brief,
  clockTime,
  createFakeClock,
  createTranscript,
  type Transcript,
  type TranscriptOptions,
} from '../src/index.js';

describe('transcript.ts examples', () => {
  it('TranscriptOptions', () => {
    const options: TranscriptOptions = {
      clock: createFakeClock(),
      output: (line) => console.log(line),
      whoWidth: 14,
    };
  });

  it('Transcript', () => {
    const transcript: Transcript = createTranscript({ clock: createFakeClock() });
    transcript.note('── scenario 1');
    expect(transcript.lines).toEqual(['── scenario 1']);
  });

  it('createTranscript', () => {
    const clock = createFakeClock({ now: Date.UTC(2026, 3, 15, 9) });
    const transcript = createTranscript({ clock });
    transcript.entry('lead → alice', 'shutdown request req_1');
    clock.advance(2_000);
    transcript.log('alice approves\n(exits after saving)');
    expect(transcript.lines).toEqual([
      '09:00:00  lead → alice   shutdown request req_1',
      '09:00:02  alice approves',
      '            (exits after saving)',
    ]);
  });

  it('clockTime and brief', () => {
    expect(clockTime(Date.UTC(2026, 3, 15, 9, 1, 30))).toBe('09:01:30');
    expect(brief({ reason: 'the work is done' })).toBe('{"reason":"the work is done"}');
    expect(brief('x'.repeat(20), 8)).toBe('"xxxxxx…');
  });
});
