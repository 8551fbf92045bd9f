import { type Clock, createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '../src/index.js';

/** A manual clock that counts its `now()` readings (on this VM one costs about 90 ns). */
function countingClock(): { clock: Clock; reads: () => number } {
  const manual = createManualClock({ now: 1_000 });
  let reads = 0;
  const clock: Clock = {
    now: () => {
      reads++;
      return manual.now();
    },
    setTimeout: (callback, delayMs, options) => manual.setTimeout(callback, delayMs, options),
    clearTimeout: (handle) => manual.clearTimeout(handle),
    setBackground: (handle, background) => manual.setBackground(handle, background),
  };
  return { clock, reads: () => reads };
}

describe('one clock reading per event', () => {
  it('a round trip reads each side’s clock once per event: request, arrival, answer, reply (after the first)', async () => {
    const leadClock = countingClock();
    const aliceClock = countingClock();
    const wire: CorrelateMessage[] = [];
    const send = (m: CorrelateMessage): void => void wire.push(m);
    const lead = createCorrelator({
      self: 'lead',
      protocols: [shutdownProtocol],
      send,
      clock: leadClock.clock,
    });
    const alice = createCorrelator({
      self: 'alice',
      protocols: [shutdownProtocol],
      send,
      clock: aliceClock.clock,
    });
    const counts = (): [number, number] => [leadClock.reads(), aliceClock.reads()];
    const roundTrip = () => lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
    // The first request arms the deadline queue's timer, which reads the clock for its delay; later
    // ones reuse it (see createDeadlineQueue): the counts below are those of every later round trip.
    const first = roundTrip();
    await alice.receive(wire.shift());
    alice.respond(first.id, { approve: true });
    await lead.receive(wire.shift());
    await first;

    const before = counts();
    const reply = roundTrip();
    const sent = counts();
    expect(sent[0] - before[0]).toBe(1); // the request's creation (its deadline counts from it)

    await alice.receive(wire.shift());
    const arrived = counts();
    expect(arrived[1] - sent[1]).toBe(1); // the arrival: late or not, and the record's times

    alice.respond(reply.id, { approve: true });
    const answered = counts();
    expect(answered[1] - arrived[1]).toBe(1); // the answer: in time, and when it settled

    await lead.receive(wire.shift());
    const settled = counts();
    expect(settled[0] - answered[0]).toBe(1); // the reply: in time, and when it settled
    expect((await reply).state).toBe('approved');
    expect(lead.get(reply.id)?.settledAt).toBe(1_000);
    lead.close();
    alice.close();
  });
});
