import { isParleyError } from '@parley/core';
import { type CorrelateMessage, createCorrelator, shutdownProtocol } from '@parley/correlate';
import { describe, expect, it } from 'vitest';
import {
  createFakeChannel,
  createFakeClock,
  createFakePlatform,
  createRecordingHub,
  createScriptedModel,
  type SendRecord,
} from '../src/index.js';

describe('FakePlatform.timesCompleted(target, action)', () => {
  it('counts completions of one target by action', async () => {
    const platform = createFakePlatform({ otherwise: 'success' });
    await platform.execute({ action: 'takedown', targets: ['m1', 'm2'] });
    await platform.execute({ action: 'notify', targets: ['m1'] });
    await platform.execute({ action: 'takedown', targets: ['m1'] });
    expect(platform.timesCompleted('m1')).toBe(3);
    expect(platform.timesCompleted('m1', 'takedown')).toBe(2);
    expect(platform.timesCompleted('m1', 'notify')).toBe(1);
    expect(platform.timesCompleted('m2', 'notify')).toBe(0);
    expect(platform.timesCompleted('m1', 'archive')).toBe(0);
  });

  it('does not count failed targets, failed calls or calls still pending', async () => {
    const clock = createFakeClock();
    const platform = createFakePlatform({
      clock,
      script: [{ outcome: 'partial', failTargets: ['m2'] }, 'failed', { outcome: 'success', delayMs: 100 }],
    });
    await platform.execute({ action: 'takedown', targets: ['m1', 'm2'] });
    await platform.execute({ action: 'takedown', targets: ['m1', 'm2'] });
    const pending = platform.execute({ action: 'takedown', targets: ['m2'] });
    expect(platform.timesCompleted('m2', 'takedown')).toBe(0);
    expect(platform.timesCompleted('m1', 'takedown')).toBe(1);
    clock.advance(100);
    await pending;
    expect(platform.timesCompleted('m2', 'takedown')).toBe(1);
  });
});

const out = (text: string) => ({ channel: 'fake', chatId: 'g1', text, sessionKey: 'fake:g1', createdAt: 0 });

describe('FakeChannel.onSend', () => {
  it('tells listeners of each send as it happens, failures included, in order', async () => {
    const seen: SendRecord[] = [];
    const fromOption: string[] = [];
    const channel = createFakeChannel({ onSend: (record) => fromOption.push(record.message.text) });
    const off = channel.onSend((record) => {
      seen.push(record);
      expect(channel.sends.at(-1)).toBe(record); // already recorded when heard
    });
    await channel.send(out('one'));
    channel.failSends(1);
    await expect(channel.send(out('two'))).rejects.toMatchObject({
      code: 'injected_fault',
    });
    off();
    await channel.send(out('three'));
    expect(seen.map((r) => [r.ok, r.message.text])).toEqual([
      [true, 'one'],
      [false, 'two'],
    ]);
    expect(fromOption).toEqual(['one', 'two', 'three']);
  });

  it('lets a test answer a prompt the moment it is sent', async () => {
    const channel = createFakeChannel();
    const answers: string[] = [];
    channel.onSend(({ message }) => {
      if (message.text.includes('确认')) answers.push(`reply to ${message.text}`);
    });
    await channel.send(out('hello'));
    await channel.send(out('请回复 确认'));
    expect(answers).toEqual(['reply to 请回复 确认']);
  });

  it('keeps listeners across clear and subscribes the same function twice independently', async () => {
    const channel = createFakeChannel();
    let count = 0;
    const listener = (): void => {
      count++;
    };
    const offA = channel.onSend(listener);
    channel.onSend(listener);
    channel.clear();
    await channel.send(out('x'));
    expect(count).toBe(2);
    offA();
    offA();
    await channel.send(out('y'));
    expect(count).toBe(3);
  });
});

describe('ScriptedModel.skip / clear', () => {
  it('drops the next ordered steps unused, keeping the rest', async () => {
    const model = createScriptedModel<string>({ replies: ['a', 'b', 'c'] });
    expect(model.skip(2)).toBe(model);
    expect(model.remaining).toBe(1);
    expect(await model('x')).toBe('c');
    expect(model.calls).toHaveLength(1);
  });

  it('skips one step by default and refuses counts it cannot honour', () => {
    const model = createScriptedModel<string>({ replies: ['a', 'b'] });
    model.skip();
    expect(model.remaining).toBe(1);
    for (const bad of [2, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        model.skip(bad);
      } catch (caught) {
        error = caught;
      }
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
    expect(model.remaining).toBe(1);
    model.skip(0);
    expect(model.remaining).toBe(1);
  });

  it('clears every ordered step but keeps the rules, so assertAllUsed passes', async () => {
    const model = createScriptedModel<string, string>({
      replies: ['a', 'b'],
      rules: [{ match: 'ping', reply: 'pong' }],
    });
    expect(() => model.assertAllUsed()).toThrow();
    expect(model.clear()).toBe(model);
    expect(model.remaining).toBe(0);
    model.assertAllUsed();
    expect(await model('ping')).toBe('pong');
    await expect(model('other')).rejects.toMatchObject({ code: 'unscripted_call' });
    model.reply('later');
    expect(await model('other')).toBe('later');
  });
});

type Name = 'lead' | 'alice' | 'bob';
interface Note {
  readonly to: Name;
  readonly text: string;
}

function team(options: Partial<Parameters<typeof createRecordingHub<Note, Name>>[0]> = {}) {
  const hub = createRecordingHub<Note, Name>({
    endpoints: ['lead', 'alice', 'bob'],
    route: (message) => message.to,
    ...options,
  });
  const heard: string[] = [];
  for (const name of ['lead', 'alice', 'bob'] as const) {
    hub.endpoint(name).listen((message) => {
      heard.push(`${name}<${message.text}`);
      return `${name} ok`;
    });
  }
  return { hub, heard };
}

describe('createRecordingHub', () => {
  it('routes each message to its recipient and records it', async () => {
    const { hub, heard } = team();
    hub.endpoint('lead').send({ to: 'alice', text: 'a1' });
    hub.endpoint('lead').sendTo('bob', { to: 'bob', text: 'b1' });
    hub.endpoint('bob').send({ to: 'lead', text: 'done' });
    await hub.flush();
    expect(heard).toEqual(['alice<a1', 'bob<b1', 'lead<done']);
    expect(hub.records.map((r) => [r.seq, r.from, r.to, r.status, r.deliveries[0]?.result])).toEqual([
      [1, 'lead', 'alice', 'delivered', 'alice ok'],
      [2, 'lead', 'bob', 'delivered', 'bob ok'],
      [3, 'bob', 'lead', 'delivered', 'lead ok'],
    ]);
    expect(hub.messages({ to: 'lead' })).toEqual([{ to: 'lead', text: 'done' }]);
    expect(hub.names).toEqual(['lead', 'alice', 'bob']);
    expect(hub.endpoint('lead')).toBe(hub.endpoint('lead'));
  });

  it('applies faults filtered by sender and recipient', async () => {
    const clock = createFakeClock();
    const { hub, heard } = team({ clock });
    hub.drop({ to: 'bob' });
    hub.duplicate({ from: 'alice' });
    hub.delay(50, { to: 'alice' });
    hub.endpoint('lead').send({ to: 'bob', text: 'lost' });
    hub.endpoint('lead').send({ to: 'alice', text: 'late' });
    hub.endpoint('alice').send({ to: 'lead', text: 'twice' });
    await hub.flush();
    expect(heard).toEqual(['lead<twice', 'lead<twice']);
    expect(hub.inFlight).toBe(1);
    clock.advance(50);
    await hub.flush();
    expect(heard).toEqual(['lead<twice', 'lead<twice', 'alice<late']);
    expect(hub.records.map((r) => [r.to, r.status, r.fault])).toEqual([
      ['bob', 'dropped', 'drop'],
      ['alice', 'delivered', 'delay'],
      ['lead', 'delivered', 'duplicate'],
    ]);
  });

  it('holds messages in manual delivery and reorders on cue', async () => {
    const { hub, heard } = team({ delivery: 'manual' });
    hub.reorder({ to: 'alice' });
    hub.endpoint('lead').send({ to: 'alice', text: 'first' });
    hub.endpoint('lead').send({ to: 'bob', text: 'second' });
    expect(hub.waiting).toEqual([
      { to: 'bob', text: 'second' },
      { to: 'alice', text: 'first' },
    ]);
    await hub.deliverNext();
    expect(heard).toEqual(['bob<second']);
    expect(hub.discard()).toBe(1);
    expect(hub.records[0]?.status).toBe('dropped');
  });

  it('drives a lead and two teammates over request_id correlation', async () => {
    const clock = createFakeClock();
    type Party = 'lead' | 'alice' | 'bob';
    const hub = createRecordingHub<CorrelateMessage, Party>({
      endpoints: ['lead', 'alice', 'bob'],
      route: (message) => message.to,
      clock,
    });
    const common = { clock, protocols: [shutdownProtocol] };
    const lead = createCorrelator({ ...common, self: 'lead', send: hub.endpoint('lead').send });
    hub.endpoint('lead').listen((message) => lead.receive(message));
    for (const name of ['alice', 'bob'] as const) {
      const mate = createCorrelator({ ...common, self: name, send: hub.endpoint(name).send });
      hub.endpoint(name).listen((message) => mate.receive(message));
      mate.on('request', ({ request }) => {
        mate.respond(request.id, { approve: name === 'alice' });
      });
    }
    hub.duplicate({ from: 'bob' }); // bob's answer arrives twice; the second is refused as data
    const alice = lead.request(shutdownProtocol, { to: 'alice', payload: { reason: 'done' } });
    const bob = lead.request(shutdownProtocol, { to: 'bob', payload: { reason: 'done' } });
    await hub.flush();
    expect((await alice).approved).toBe(true);
    expect((await bob).approved).toBe(false);
    const bobAnswers = hub.records.filter((r) => r.from === 'bob');
    expect(bobAnswers[0]?.deliveries.map((d) => (d.result as { ok: boolean }).ok)).toEqual([true, false]);
  });

  it('refuses bad endpoints, unknown recipients and send without a route', () => {
    const bad: unknown[] = [
      { endpoints: ['only'] },
      { endpoints: ['a', 'a'] },
      { endpoints: ['a', 3] },
      undefined,
    ];
    for (const options of bad) {
      expect(() => createRecordingHub(options as never)).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    const { hub } = team();
    expect(() => hub.endpoint('carol' as Name)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => hub.endpoint('lead').send({ to: 'carol' as Name, text: 'x' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => hub.endpoint('lead').sendTo('carol' as Name, { to: 'alice', text: 'x' })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    const plain = createRecordingHub<string, 'a' | 'b'>({ endpoints: ['a', 'b'] });
    expect(() => plain.endpoint('a').send('x')).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(plain.records).toEqual([]);
    expect(() => plain.endpoint('a').listen(() => {}) && plain.endpoint('a').listen(() => {})).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});
