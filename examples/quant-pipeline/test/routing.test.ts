import { createManualClock, createSequentialIds } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { bullBrief } from '../src/fixtures.js';
import { createTranscript } from '../src/transcript.js';
import { CEO, createHost, STRATEGIST } from '../src/wiring.js';

function setUp() {
  const clock = createManualClock({ now: 0 });
  const transcript = createTranscript(clock);
  const host = createHost({ clock, transcript, refTask: 'run-1', generateId: createSequentialIds('env_') });
  host.topology.spawn({ parent: CEO, id: STRATEGIST, role: STRATEGIST });
  host.topology.spawn({ parent: STRATEGIST, id: 'bull-1', role: 'bullish_researcher' });
  host.topology.spawn({ parent: STRATEGIST, id: 'bear-1', role: 'bearish_researcher' });
  host.putArtifact('bull-1', 'Bullish_Brief.json', bullBrief);
  const codec = host.codec('Bullish_Brief.json');
  const deliver = (to: string, spawn_depth = 2, expect_response = false) =>
    codec.create('deliver_report', {
      from: 'bull-1',
      to,
      ref_task: 'run-1',
      payload: { $ref: 'Bullish_Brief.json' },
      spawn_depth,
      expect_response,
    });
  return { host, transcript, deliver };
}

describe('routing between agents', () => {
  it('accepts an announce from a run to its parent, with the payload resolved by reference', () => {
    const { host, transcript, deliver } = setUp();
    expect(host.post(deliver(STRATEGIST), 'Bullish_Brief.json')).toEqual({ ok: true });
    expect(transcript.lines).toEqual([
      '00:00:00  bull-1 → quant_strategist  deliver_report: Bullish_Brief.json',
    ]);
  });

  it('refuses a report to a sibling, a blocking send from a child and a lie about depth', () => {
    const { host, transcript, deliver } = setUp();
    expect(host.post(deliver('bear-1'), 'Bullish_Brief.json')).toEqual({
      ok: false,
      code: 'wrong_direction',
    });
    expect(host.post(deliver(STRATEGIST, 2, true), 'Bullish_Brief.json')).toEqual({
      ok: false,
      code: 'send_not_allowed',
    });
    expect(host.post(deliver(STRATEGIST, 0), 'Bullish_Brief.json')).toEqual({
      ok: false,
      code: 'depth_mismatch',
    });
    expect(transcript.lines).toHaveLength(3); // each refusal logged, nothing delivered
    expect(transcript.lines.every((line) => line.includes('⛔'))).toBe(true);
    expect(host.notifications).toEqual([]);
  });

  it('refuses a researcher escalating past its parent, and lets the CEO notify a channel', () => {
    const { host } = setUp();
    const codec = host.codec('Pipeline_Summary.json');
    const skip = codec.create('escalate', {
      from: 'bull-1',
      to: CEO,
      payload: { reason: 'skip the strategist' },
      spawn_depth: 2,
    });
    expect(host.post(skip)).toEqual({ ok: false, code: 'not_parent' });
    const notify = codec.create('notify', {
      from: CEO,
      to: '#errors',
      payload: { message: 'down', channel: '#errors' },
    });
    expect(host.post(notify)).toEqual({ ok: true });
    expect(host.notifications).toEqual([{ channel: '#errors', message: 'down' }]);
  });
});
