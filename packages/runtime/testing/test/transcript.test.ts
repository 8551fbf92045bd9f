import { describe, expect, it } from 'vitest';
import { brief, clockTime, createFakeClock, createTranscript } from '../src/index.js';

const START = Date.UTC(2026, 3, 15, 9, 0, 0);

describe('createTranscript', () => {
  it('stamps entries with the clock and keeps notes as they are', () => {
    const clock = createFakeClock({ now: START });
    const seen: string[] = [];
    const t = createTranscript({ clock, output: (line) => seen.push(line), whoWidth: 6 });
    t.note('── one\n');
    t.entry('lead', 'asks');
    clock.advance(65_000);
    t.log('answers\nwith two lines');
    expect(t.lines).toEqual([
      '── one',
      '',
      '09:00:00  lead   asks',
      '09:01:05  answers',
      '            with two lines',
    ]);
    expect(seen).toEqual(t.lines);
  });

  it('redacts every line before it is kept or written', () => {
    const seen: string[] = [];
    const t = createTranscript({
      clock: { now: () => START },
      output: (line) => seen.push(line),
      redact: (line) => line.replace(/sk-\w+/g, '[redacted]'),
    });
    t.log('token sk-abc123');
    t.note('sk-zzz');
    expect(t.lines).toEqual(['09:00:00  token [redacted]', '[redacted]']);
    expect(seen).toEqual(t.lines);
  });

  it('writes an empty entry as just its stamp', () => {
    const t = createTranscript({ clock: { now: () => START } });
    t.log('');
    expect(t.lines).toEqual(['09:00:00  ']);
  });
});

describe('clockTime and brief', () => {
  it('formats UTC time and cuts long values', () => {
    expect(clockTime(START + 3_723_000)).toBe('10:02:03');
    expect(brief({ a: 1 })).toBe('{"a":1}');
    expect(brief('x'.repeat(20), 8)).toBe('"xxxxxx…');
    expect(brief(undefined)).toBe('undefined');
  });
});
