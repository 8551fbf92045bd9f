import { isParleyError } from '@parley/core';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '@parley/correlate';
import { describe, expect, it } from 'vitest';
import { createFakeClock, createRecordingTransport, type RecordingTransportOptions } from '../src/index.js';

function pingPong(options: RecordingTransportOptions<'a' | 'b'> = {}) {
  const wire = createRecordingTransport<string>(options);
  const seenByB: string[] = [];
  const seenByA: string[] = [];
  wire.endpoint('b').listen((message) => {
    seenByB.push(message);
    return `b got ${message}`;
  });
  wire.endpoint('a').listen((message) => void seenByA.push(message));
  return { wire, seenByA, seenByB };
}

describe('createRecordingTransport: delivery', () => {
  it('delivers each message to the other endpoint in a microtask, recording the result', async () => {
    const { wire, seenByB } = pingPong();
    wire.endpoint('a').send('one');
    wire.endpoint('a').send('two');
    expect(seenByB).toEqual([]);
    expect(wire.inFlight).toBe(2);
    await wire.flush();
    expect(seenByB).toEqual(['one', 'two']);
    expect(wire.records.map((r) => [r.seq, r.from, r.to, r.status, r.deliveries[0]?.result])).toEqual([
      [1, 'a', 'b', 'delivered', 'b got one'],
      [2, 'a', 'b', 'delivered', 'b got two'],
    ]);
    expect(wire.inFlight).toBe(0);
  });

  it('waits for the test in manual mode, then delivers one at a time', async () => {
    const { wire, seenByB, seenByA } = pingPong({ delivery: 'manual' });
    wire.endpoint('a').send('x');
    wire.endpoint('b').send('y');
    await Promise.resolve();
    expect(seenByB).toEqual([]);
    expect((await wire.deliverNext())?.message).toBe('x');
    expect(seenByA).toEqual([]);
    expect(await wire.flush()).toBe(1);
    expect(seenByA).toEqual(['y']);
    expect(await wire.deliverNext()).toBeUndefined();
    expect(wire.messages({ from: 'a' })).toEqual(['x']);
    expect(wire.messages({ to: 'a' })).toEqual(['y']);
    expect(wire.messages()).toEqual(['x', 'y']);
  });

  it('keeps messages for an endpoint without a receiver until it listens', async () => {
    const wire = createRecordingTransport<string>();
    wire.endpoint('a').send('early');
    await expect(wire.flush()).rejects.toMatchObject({ code: 'not_connected' });
    const seen: string[] = [];
    const stop = wire.endpoint('b').listen((m) => void seen.push(m));
    await wire.flush();
    expect(seen).toEqual(['early']);
    stop();
    stop();
    wire.endpoint('a').send('late');
    await Promise.resolve();
    expect(wire.inFlight).toBe(1);
  });

  it('records what a receiver throws without throwing into the sender', async () => {
    const wire = createRecordingTransport<string>();
    const boom = new Error('bad');
    wire.endpoint('b').listen(() => {
      throw boom;
    });
    expect(() => wire.endpoint('a').send('x')).not.toThrow();
    await wire.flush();
    expect(wire.records[0]?.deliveries).toEqual([{ at: undefined, error: boom }]);
  });

  it('refuses unknown endpoints, equal names and a second receiver', () => {
    const wire = createRecordingTransport<string, 'lead' | 'alice'>({ endpoints: ['lead', 'alice'] });
    expect(wire.endpoint('lead')).toBe(wire.endpoint('lead'));
    expect(() => wire.endpoint('bob' as 'lead')).toThrow(
      'RecordingTransport has no endpoint "bob"; its endpoints are "lead" and "alice"',
    );
    wire.endpoint('alice').listen(() => {});
    expect(() => wire.endpoint('alice').listen(() => {})).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createRecordingTransport({ endpoints: ['x', 'x'] })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });

  it('stops a flush that never ends with assertion_failed', async () => {
    const wire = createRecordingTransport<number>({ delivery: 'manual', maxDeliveries: 5 });
    wire.endpoint('a').listen((n) => wire.endpoint('a').send(n + 1));
    wire.endpoint('b').listen((n) => wire.endpoint('b').send(n + 1));
    wire.endpoint('a').send(0);
    const error = await wire.flush().catch((err: unknown) => err);
    expect(isParleyError(error, 'assertion_failed')).toBe(true);
    expect(wire.records).toHaveLength(6);
  });
});

describe('createRecordingTransport: faults', () => {
  it('drops the next matching message', async () => {
    const { wire, seenByB } = pingPong();
    wire.drop({ match: (m) => m.startsWith('secret') });
    wire.endpoint('a').send('hello');
    wire.endpoint('a').send('secret 1');
    wire.endpoint('a').send('secret 2');
    await wire.flush();
    expect(seenByB).toEqual(['hello', 'secret 2']);
    expect(wire.records.map((r) => [r.status, r.fault])).toEqual([
      ['delivered', undefined],
      ['dropped', 'drop'],
      ['delivered', undefined],
    ]);
  });

  it('duplicates messages from one endpoint only, as many times as asked', async () => {
    const { wire, seenByA, seenByB } = pingPong();
    wire.duplicate({ from: 'b', times: 2 });
    wire.endpoint('a').send('a1');
    wire.endpoint('b').send('b1');
    wire.endpoint('b').send('b2');
    wire.endpoint('b').send('b3');
    await wire.flush();
    expect(seenByB).toEqual(['a1']);
    expect(seenByA).toEqual(['b1', 'b1', 'b2', 'b2', 'b3']);
    expect(wire.records[1]?.deliveries).toHaveLength(2);
  });

  it('delays a message on the fake clock', async () => {
    const clock = createFakeClock({ now: 0 });
    const { wire, seenByB } = pingPong({ clock });
    wire.delay(1_000);
    wire.endpoint('a').send('late');
    wire.endpoint('a').send('prompt');
    await wire.flush();
    expect(seenByB).toEqual(['prompt']);
    expect(wire.inFlight).toBe(1);
    clock.advance(1_000);
    await wire.flush();
    expect(seenByB).toEqual(['prompt', 'late']);
    expect(wire.records[0]).toMatchObject({ sentAt: 0, fault: 'delay', deliveries: [{ at: 1_000 }] });
  });

  it('needs a clock and a valid delay, and positive times', () => {
    expect(() => createRecordingTransport().delay(5)).toThrow(
      expect.objectContaining({ code: 'clock_required' }),
    );
    const wire = createRecordingTransport({ clock: createFakeClock() });
    expect(() => wire.delay(-5)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => wire.drop({ times: 0 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('shows the waiting messages and loses them all on discard', async () => {
    const { wire, seenByB } = pingPong({ delivery: 'manual' });
    wire.duplicate();
    wire.endpoint('a').send('dup');
    await wire.deliverNext();
    wire.reorder();
    wire.endpoint('a').send('held');
    wire.endpoint('b').send('other');
    expect(wire.waiting).toEqual(['dup', 'other', 'held']);
    expect(wire.discard()).toBe(3);
    expect(wire.waiting).toEqual([]);
    expect(await wire.flush()).toBe(0);
    expect(seenByB).toEqual(['dup']);
    expect(wire.records.map((r) => r.status)).toEqual(['delivered', 'dropped', 'dropped']);
  });

  it('reorders a message after the next one, or releases it on flush', async () => {
    const { wire, seenByB } = pingPong({ delivery: 'manual' });
    wire.reorder({ times: 2 });
    wire.endpoint('a').send('1');
    wire.endpoint('a').send('2');
    wire.endpoint('a').send('3');
    expect(wire.inFlight).toBe(3);
    await wire.flush();
    expect(seenByB).toEqual(['3', '1', '2']);
    wire.reorder();
    wire.endpoint('a').send('alone');
    await wire.flush();
    expect(seenByB.at(-1)).toBe('alone');
  });
});

describe('createRecordingTransport between two correlators', () => {
  function team() {
    const clock = createFakeClock({ now: 1_000 });
    const wire = createRecordingTransport<CorrelateMessage, 'lead' | 'alice'>({
      endpoints: ['lead', 'alice'],
      clock,
    });
    const common = { clock, protocols: [shutdownProtocol] };
    const lead = createCorrelator({ ...common, self: 'lead', send: wire.endpoint('lead').send });
    const alice = createCorrelator({ ...common, self: 'alice', send: wire.endpoint('alice').send });
    wire.endpoint('lead').listen((m) => lead.receive(m));
    wire.endpoint('alice').listen((m) => alice.receive(m));
    alice.on('request', ({ request }) => {
      alice.respond(request.id, { approve: true });
    });
    return { clock, wire, lead, alice };
  }

  it('refuses a duplicated reply as data and settles the request once', async () => {
    const { wire, lead, clock } = team();
    wire.duplicate({ from: 'alice' });
    const reply = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
    await wire.flush();
    expect((await reply).approved).toBe(true);
    const results = wire.records[1]?.deliveries.map((d) => d.result as { ok: boolean; code?: string });
    expect(results?.map((r) => r.ok)).toEqual([true, false]);
    lead.close();
    clock.runAll();
  });

  it('expires a request whose reply is delayed past the deadline, then refuses the late reply', async () => {
    const { wire, lead, clock } = team();
    wire.delay(60_000, { from: 'alice' });
    const reply = lead.request(shutdownProtocol, {
      to: 'alice',
      payload: { reason: 'done' },
      timeoutMs: 5_000,
    });
    const outcome = reply.catch((err: unknown) => err);
    await wire.flush();
    clock.advance(5_000);
    expect(await outcome).toMatchObject({ code: 'timeout' });
    clock.advance(55_000);
    await wire.flush();
    expect(wire.records[1]?.deliveries[0]?.result).toMatchObject({ ok: false });
    lead.close();
  });
});
