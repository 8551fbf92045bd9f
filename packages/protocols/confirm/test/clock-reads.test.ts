import { type Clock, createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { flush, REQUEST, setup } from './helpers.js';

// Issue 36: the gate reads its clock once per event of a confirmation (the request, its prompt's
// delivery, the reply) and its kernel once per store write; events whose rules do not depend on
// the time (a record written, a send begun) read nothing.

/** `clock` with its readings counted. */
function counting(clock: Clock): Clock & { readonly reads: () => number } {
  let reads = 0;
  return {
    now: () => {
      reads++;
      return clock.now();
    },
    setTimeout: (callback, delayMs, options) => clock.setTimeout(callback, delayMs, options),
    clearTimeout: (handle) => clock.clearTimeout(handle),
    reads: () => reads,
  };
}

describe('the clock readings of one confirmation', () => {
  it('reads the clock at most once per event and once per store write: request, delivery, reply, four writes', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const gateClock = counting(clock);
    const store = createMemoryStore({ clock }); // the store's own readings are not the gate's
    const h = await setup({ clock: gateClock }, { clock, store });
    const before = gateClock.reads();
    const prompted = h.nextPrompt();
    const decision = h.gate.request(REQUEST);
    await prompted;
    await h.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
    await flush();
    // Three events (the request, its prompt's delivery, the reply) and four writes (the pending
    // record when prompted and when delivered, the decision, the pending record's delete).
    expect(gateClock.reads() - before).toBeLessThanOrEqual(3 + 4);
  });

  it('still times each event by the clock at that event: the window counts from the delivery', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const h = await setup(
      { clock: counting(clock), timeoutMs: 60_000 },
      { clock, store: createMemoryStore({ clock }) },
    );
    const prompted = h.nextPrompt();
    const decision = h.gate.request(REQUEST);
    await prompted;
    clock.advance(59_999);
    await h.channel.say('g1', 'alice', '确认');
    const decided = await decision;
    expect(decided).toMatchObject({ outcome: 'confirmed', requestedAt: 1_000_000, decidedAt: 1_059_999 });
    expect(decided.expiresAt).toBe(1_060_000);
  });
});
