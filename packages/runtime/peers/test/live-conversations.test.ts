// maxConversations counts the conversations this instance opened and has not seen expire. The count
// must be exact whatever order they expire in (a wall clock stepped back opens one that expires before
// an older one), and a send must not walk every open conversation to find the expired ones.
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '@parley/core';
import { createNet, type Net, settle } from './helpers.js';

let net: Net;
afterEach(() => {
  net.close();
  expect(net.clock.pendingTimers()).toBe(0);
});

/** The net's manual clock as a wall clock that can be stepped back (an NTP correction). */
function steppedClock(base: Net['clock']): Clock & { offset: number } {
  return {
    offset: 0,
    now() {
      return base.now() + this.offset;
    },
    setTimeout: (callback, delayMs, options) => base.setTimeout(callback, delayMs, options),
    clearTimeout: (handle) => base.clearTimeout(handle),
  };
}

async function open(peers: ReturnType<Net['add']>, conversationId: string) {
  const result = peers.send({ to: 'secretary', message: 'hi', conversationId });
  await net.flush();
  await settle();
  return result;
}

describe('maxConversations', () => {
  it('frees the slot of a conversation that expires before an older one', async () => {
    net = createNet();
    const clock = steppedClock(net.clock);
    const ceo = net.add('ceo', { clock, maxConversations: 2, conversationMs: 10_000 });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    expect(await open(ceo, 'a')).toMatchObject({ ok: true }); // expires at +10 s
    clock.offset = -5_000; // the wall clock is stepped back 5 s
    expect(await open(ceo, 'b')).toMatchObject({ ok: true }); // expires at +5 s, before a
    expect(await open(ceo, 'c')).toMatchObject({ ok: false, code: 'too_many_conversations' });
    net.clock.advance(10_000); // the wall clock reads +5 s: b has expired, a has not
    expect(await open(ceo, 'c')).toMatchObject({ ok: true });
    expect(await open(ceo, 'd')).toMatchObject({ ok: false, code: 'too_many_conversations' });
    net.clock.advance(5_000); // +10 s: a has expired too
    expect(await open(ceo, 'd')).toMatchObject({ ok: true });
  });

  it('admits exactly as many new conversations as have expired, over many, in any order', async () => {
    net = createNet();
    const clock = steppedClock(net.clock);
    const ceo = net.add('ceo', { clock, maxConversations: 60, conversationMs: 10_000 });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    const expiries: number[] = [];
    let seed = 7;
    for (let i = 0; i < 60; i++) {
      seed = (seed * 48_271) % 2_147_483_647;
      clock.offset = -(seed % 3_000); // the wall clock wanders back by up to 3 s
      expiries.push(clock.now() + 10_000);
      expect(await open(ceo, `first${i}`)).toMatchObject({ ok: true });
      net.clock.advance(100);
    }
    expect(await open(ceo, 'late')).toMatchObject({ ok: false, code: 'too_many_conversations' });
    clock.offset = 0;
    net.clock.advance(5_000);
    const expired = expiries.filter((at) => at <= clock.now()).length;
    expect(expired).toBeGreaterThan(10);
    expect(expired).toBeLessThan(50);
    const admitted: string[] = [];
    for (let i = 0; i < 60; i++) {
      const sent = await open(ceo, `second${i}`);
      if (sent.ok) admitted.push(sent.conversationId);
      else expect(sent).toMatchObject({ code: 'too_many_conversations' });
    }
    expect(admitted).toHaveLength(expired);
    // a round of a conversation still open is not a new conversation
    const open59 = expiries[59] as number;
    expect(open59).toBeGreaterThan(clock.now());
    expect(await open(ceo, 'first59')).toMatchObject({ ok: true, round: 2 });
  });
});
