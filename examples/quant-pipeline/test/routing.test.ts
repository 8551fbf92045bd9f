import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { CEO, createHost, STRATEGIST } from '../src/host.js';
import { findScenario } from '../src/scenarios.js';
import { createTranscript } from '../src/transcript.js';

function setUp() {
  const clock = createManualClock({ now: 0 });
  const transcript = createTranscript(clock);
  const scenario = findScenario('happy');
  if (scenario === undefined) throw new Error('happy');
  const host = createHost({ clock, transcript, scenario, refTask: 'run-1' });
  host.topology.spawn({ parent: CEO, id: STRATEGIST, role: STRATEGIST });
  host.topology.spawn({ parent: STRATEGIST, id: 'bull-1', role: 'bullish_researcher' });
  host.topology.spawn({ parent: STRATEGIST, id: 'bear-1', role: 'bearish_researcher' });
  const deliver = (to: string, depth = 2) =>
    host.envelope('deliver_report', { from: 'bull-1', to, payload: { summary: 'up' }, depth });
  return { host, transcript, deliver };
}

describe('routing between agents', () => {
  it('accepts an announce from a run to its parent', () => {
    const { host, transcript, deliver } = setUp();
    expect(host.post(deliver(STRATEGIST))).toEqual({ ok: true, payload: { summary: 'up' } });
    expect(transcript.lines.at(-1)).toBe('00:00:00  bull-1 → quant_strategist  deliver_report: up');
  });

  it('refuses a report to a sibling, a blocking send from a child and a lie about depth', () => {
    const { host, transcript, deliver } = setUp();
    expect(host.post(deliver('bear-1'))).toEqual({ ok: false });
    expect(host.post({ ...deliver(STRATEGIST), expect_response: true })).toEqual({ ok: false });
    expect(host.post(deliver(STRATEGIST, 0))).toEqual({ ok: false });
    expect(transcript.lines.filter((l) => l.includes('refused:'))).toEqual([
      '00:00:00    ⛔ bull-1 → bear-1 deliver_report refused: wrong_direction',
      '00:00:00    ⛔ bull-1 → quant_strategist deliver_report refused: send_not_allowed',
      '00:00:00    ⛔ bull-1 → quant_strategist deliver_report refused: depth_mismatch',
    ]);
    expect(host.notifications).toEqual([]);
  });

  it('refuses a researcher escalating past its parent, and lets the CEO notify a channel', () => {
    const { host } = setUp();
    const skip = host.envelope('escalate', {
      from: 'bull-1',
      to: CEO,
      payload: { reason: 'skip' },
      depth: 2,
    });
    expect(host.post(skip)).toEqual({ ok: false });
    const notify = host.envelope('notify', { from: CEO, to: '#errors', payload: { message: 'down' } });
    expect(host.post(notify).ok).toBe(true);
    expect(host.notifications).toEqual([{ channel: '#errors', message: 'down' }]);
  });
});
