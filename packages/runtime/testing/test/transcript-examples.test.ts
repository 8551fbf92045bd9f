// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// The TSDoc @examples of transcript.ts, compiled and run; each console.log is an assertion here.
import { createConflictLoop, defineDetector } from '@parley/conflict';
import { describe, expect, it } from 'vitest';
import {
  brief,
  clockTime,
  createFakeClock,
  createTranscript,
  type DescribeAttemptsOptions,
  describeAttempts,
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

  it('DescribeAttemptsOptions', () => {
    const options: DescribeAttemptsOptions = { author: 'GM', maxRetries: 2, formatCall: (call) => call.tool };
  });

  it('describeAttempts', async () => {
    const loop = createConflictLoop({
      maxRetries: 1,
      detectors: [
        defineDetector({
          name: 'no_shouting',
          detect: (p) =>
            p.text === p.text.toUpperCase()
              ? { expected_state_snippet: {}, mismatch_reason: 'all capitals', instructions: 'calm down' }
              : undefined,
        }),
      ],
    });
    const drafts = ['HELLO', 'Hello'];
    const outcome = await loop.run({
      input: 'greet',
      readState: () => ({}),
      generate: () => ({ text: drafts.shift() ?? '' }),
    });
    expect(describeAttempts(outcome, { author: 'bot', maxRetries: 1 })).toEqual([
      '   bot draft 1: "HELLO"',
      '     ✗ conflict [no_shouting] all capitals',
      '     ↻ conflict_debug appended to the previous request (retry 1 of 1)',
      '   bot draft 2: "Hello"',
    ]);
  });
});
