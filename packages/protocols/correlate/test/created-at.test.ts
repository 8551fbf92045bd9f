import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createCorrelator, shutdownProtocol } from '../src/index.js';

// A request's creation time is kept compactly (an offset when it can be); every clock reading must
// come back exactly, whatever its size or fraction.

describe('the creation time of a request', () => {
  const now = Date.now();
  it.each([
    ['the system clock now', now],
    ['a fraction of a millisecond', now + 0.25],
    ['long after the process started', now + 40 * 24 * 60 * 60_000],
    ['a fraction, long after', now + 40 * 24 * 60 * 60_000 + 0.5],
    ['a test clock at 0', 0],
    ['a test clock near 0', 1_000],
    ['a test clock near 0, with a fraction', 1_000.75],
    ['a time before 1970', -5_000],
    ['a large time', 2 ** 52 + 2],
  ])('is the clock reading exactly: %s', (_name, at) => {
    const clock = createManualClock({ now: at });
    const lead = createCorrelator({ self: 'lead', protocols: [shutdownProtocol], send: () => {}, clock });
    const request = lead.request(shutdownProtocol, { to: 'alice', payload: {} });
    request.catch(() => {});
    const tracked = lead.get(request.id);
    expect(tracked?.createdAt).toBe(at);
    expect(tracked?.deadlineAt).toBe(at + 30_000);
    lead.close();
  });
});
