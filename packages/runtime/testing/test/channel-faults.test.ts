import { createHygieneInterceptor, createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFakeChannel, createFakeClock, drainInbound } from '../src/index.js';

async function setup(withClock = true) {
  const clock = createFakeClock({ now: 1_000 });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel(withClock ? { channel: 'tg', clock } : { channel: 'tg' });
  await bus.attach(channel);
  return { clock, bus, channel };
}

describe('createFakeChannel: duplicate deliveries', () => {
  it('delivers the next event twice with the same event id', async () => {
    const { bus, channel } = await setup();
    channel.duplicateNext();
    const result = await channel.say('g1', 'alice', '确认');
    await channel.say('g1', 'alice', 'after');
    expect(result.status).toBe('queued');
    const texts = (await drainInbound(bus)).map((m) => `${m.text}#${m.eventId}`);
    expect(texts).toEqual(['确认#tg-evt-1', '确认#tg-evt-1', 'after#tg-evt-2']);
    expect(channel.delivered.map((d) => d.duplicate)).toEqual([false, true, false]);
  });

  it('lets the hygiene interceptor drop the redelivery', async () => {
    const { bus, channel } = await setup();
    bus.intercept(createHygieneInterceptor());
    channel.duplicateNext(2);
    await channel.say('g1', 'a', 'one');
    await channel.say('g1', 'a', 'two');
    expect(channel.delivered.map((d) => d.result.status)).toEqual([
      'queued',
      'intercepted',
      'queued',
      'intercepted',
    ]);
    expect((await drainInbound(bus)).map((m) => m.text)).toEqual(['one', 'two']);
  });
});

describe('createFakeChannel: late deliveries', () => {
  it('delivers an event late on the clock, stamped with the time it was said', async () => {
    const { clock, bus, channel } = await setup();
    channel.delayNext(5_000);
    const late = channel.say('g1', 'alice', 'slow');
    await channel.say('g1', 'bob', 'fast');
    expect(channel.inFlight).toBe(1);
    expect((await drainInbound(bus)).map((m) => m.text)).toEqual(['fast']);
    clock.advance(4_999);
    expect(channel.inFlight).toBe(1);
    clock.advance(1);
    expect(await late).toMatchObject({
      status: 'queued',
      message: { text: 'slow', createdAt: 1_000, receivedAt: 6_000 },
    });
    expect(channel.inFlight).toBe(0);
    expect(channel.delivered.map((d) => d.fault)).toEqual([undefined, 'late']);
    clock.assertNoPendingTimers();
  });

  it('delays several events and rejects a late one when the bus has gone', async () => {
    const { clock, bus, channel } = await setup();
    channel.delayNext(10, 2);
    const one = channel.say('g1', 'a', '1');
    const two = channel.say('g1', 'a', '2');
    await bus.close();
    clock.advance(10);
    await expect(one).rejects.toMatchObject({ code: 'not_connected' });
    await expect(two).rejects.toMatchObject({ code: 'not_connected' });
  });

  it('needs a clock for late deliveries and a valid delay', async () => {
    const { channel } = await setup(false);
    expect(() => channel.delayNext(10)).toThrow(expect.objectContaining({ code: 'clock_required' }));
    const { channel: timed } = await setup();
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => timed.delayNext(bad)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    expect(timed.inFlight).toBe(0);
  });
});

describe('createFakeChannel: out of order', () => {
  it('holds events and releases them in reverse', async () => {
    const { bus, channel } = await setup();
    channel.hold();
    const first = channel.say('g1', 'alice', 'first');
    const second = channel.say('g1', 'alice', 'second');
    expect(channel.inFlight).toBe(2);
    expect(bus.size.inbound).toBe(0);
    const results = await channel.release('reverse');
    expect(results.map((r) => (r.status === 'queued' ? r.message.text : r.status))).toEqual([
      'second',
      'first',
    ]);
    expect((await first).status).toBe('queued');
    expect((await second).status).toBe('queued');
    expect(channel.delivered.map((d) => [d.input.text, d.fault])).toEqual([
      ['second', 'reordered'],
      ['first', 'reordered'],
    ]);
    await channel.say('g1', 'alice', 'third'); // no longer holding
    expect((await drainInbound(bus)).map((m) => m.text)).toEqual(['second', 'first', 'third']);
  });

  it('releases in the order said, or by explicit indexes, keeping duplicates', async () => {
    const { bus, channel } = await setup();
    channel.hold();
    channel.duplicateNext();
    void channel.say('g1', 'a', '0');
    void channel.say('g1', 'a', '1');
    void channel.say('g1', 'a', '2');
    await channel.release([2, 0, 1]);
    expect((await drainInbound(bus)).map((m) => m.text)).toEqual(['2', '0', '0', '1']);
    channel.hold();
    void channel.say('g1', 'a', 'x');
    await channel.release();
    expect(channel.delivered.at(-1)?.fault).toBeUndefined();
  });

  it('refuses an order that is not a permutation of the held events', async () => {
    const { channel } = await setup();
    channel.hold();
    const held = channel.say('g1', 'a', 'x');
    for (const order of [[0, 0], [1], []] as const) {
      const error = await channel.release(order).catch((err: unknown) => err);
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
    expect(channel.inFlight).toBe(1);
    await channel.release([0]);
    expect((await held).status).toBe('queued');
  });

  it('rejects every held event when the bus is gone at release', async () => {
    const { bus, channel } = await setup();
    channel.hold();
    const one = channel.say('g1', 'a', '1');
    const two = channel.say('g1', 'a', '2');
    await bus.close();
    await expect(channel.release()).rejects.toMatchObject({ code: 'not_connected' });
    await expect(one).rejects.toMatchObject({ code: 'not_connected' });
    await expect(two).rejects.toMatchObject({ code: 'not_connected' });
  });
});
