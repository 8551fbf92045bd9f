import { createMessageBus } from '@parley/bus';
import { createMemoryStore, createSequentialIds } from '@parley/core';
import { createFakeChannel } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { type ConfirmDecision, createConfirmGate } from '../src/index.js';
import { DROP_REQUEST, flush, REQUEST, settledNow, setup, setupSlow, YES3 } from './helpers.js';

// Issue 30, section 1: whether a reply answers a prompt is decided by the order the gate saw
// events in and by the platform's own per-chat order, never by a tie between two clocks. No time
// passes in these tests between the replies and the prompts: every stamp ties. (The slow store
// write before a first or a superseding prompt: CONSENT-02 and CONSENT-03.)

describe('a reply that reached the gate before its prompt was sent', () => {
  it('[ORDER-01] does not confirm the queued DROP TABLE with the second 确认 of one batch', async () => {
    const h = await setup();
    const a = await h.ask();
    const b = h.request(DROP_REQUEST);
    await h.nextQueued();
    await Promise.all([h.channel.say('g1', 'alice', '确认'), h.channel.say('g1', 'alice', '确认')]);
    expect(await a.decision).toMatchObject({ outcome: 'confirmed' });
    await flush();
    expect(h.decided.map((d) => `${d.action.name}:${d.outcome}`)).toEqual(['sql.delete:confirmed']);
    expect(h.gate.pending()).toMatchObject([{ actionName: 'sql.drop', state: 'prompted', delivered: true }]);
    await h.channel.say('g1', 'alice', '取消'); // an answer that arrives after B's prompt was sent counts
    expect(await b).toMatchObject({ outcome: 'cancelled' });
  });

  it('[ORDER-02] never confirms the queued request with the system clock, the memory store and a fake channel (50 runs)', async () => {
    for (let run = 0; run < 50; run++) {
      const bus = createMessageBus();
      const channel = createFakeChannel({ channel: 'feishu' });
      await bus.attach(channel);
      const gate = createConfirmGate({
        bus,
        store: createMemoryStore(),
        generateId: createSequentialIds('c'),
      });
      const decided: ConfirmDecision[] = [];
      gate.on('decided', ({ decision }) => decided.push(decision));
      const prompted = new Promise((resolve) => gate.on('prompted', resolve));
      const a = gate.request(REQUEST);
      await prompted;
      const queued = new Promise((resolve) => gate.on('queued', resolve));
      const b = gate.request(DROP_REQUEST);
      await queued;
      await Promise.all([channel.say('g1', 'alice', '确认'), channel.say('g1', 'alice', '确认')]);
      expect((await a).outcome).toBe('confirmed');
      await gate.close();
      expect({ run, outcome: (await b).outcome }).toEqual({ run, outcome: 'aborted' });
    }
  });

  it('[ORDER-05] advances three exact YES steps only on answers that arrived after each step was sent', async () => {
    const h = await setup();
    const { decision } = await h.ask({ steps: YES3 });
    await Promise.all([1, 2, 3].map(() => h.channel.say('g1', 'alice', 'YES')));
    await flush();
    expect(h.decided).toEqual([]);
    expect(h.gate.pending()).toMatchObject([{ step: 1, delivered: true }]);
    await h.channel.say('g1', 'alice', 'NO');
    expect(await decision).toMatchObject({ outcome: 'cancelled', failedStep: 2 });
  });
});

describe('a reply that arrives while the prompt is in flight', () => {
  it('[ORDER-06] without a platform order: does not count, and tells the person at once that it came too early', async () => {
    const s = await setupSlow();
    const { decision } = await s.ask();
    const reply = s.slow.say('g1', 'alice', '确认');
    expect((await settledNow(reply, 'the in-flight reply')).status).toBe('intercepted'); // not held
    expect(s.ignored).toMatchObject([{ code: 'before_delivery' }]);
    expect(s.slow.held.map((held) => held.message.text)).toEqual([
      expect.stringContaining('以下操作需要确认'),
      expect.stringContaining('too early'),
    ]);
    s.slow.deliverNext();
    s.slow.deliverNext();
    await flush();
    await s.slow.say('g1', 'alice', '确认'); // asked again, answered after the send resolved
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it('[ORDER-07] with a platform order: counts once the receipt shows it was written after the prompt', async () => {
    const s = await setupSlow();
    const { decision } = await s.ask();
    const reply = s.slow.say('g1', 'alice', '确认', { order: { scope: 'g1', position: [11] } });
    s.slow.deliverNext({ order: { scope: 'g1', position: [10] } });
    expect((await reply).status).toBe('intercepted');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'alice' });
    expect(s.ignored).toEqual([]);
  });

  it('[ORDER-08] with a platform order: does not count a reply the platform placed before or level with the prompt', async () => {
    for (const position of [[9], [10]]) {
      const s = await setupSlow();
      const { decision } = await s.ask({ requester: 'a' });
      const reply = s.slow.say('g1', 'a', '确认', { order: { scope: 'g1', position } });
      s.slow.deliverNext({ order: { scope: 'g1', position: [10] } });
      expect((await reply).status).toBe('intercepted');
      await flush();
      expect(s.ignored.map((event) => event.code)).toEqual(['before_delivery']);
      expect(s.gate.pending()).toMatchObject([{ delivered: true }]);
      await s.gate.close();
      expect(await decision).toMatchObject({ outcome: 'aborted' });
    }
  });

  it('[ORDER-09] does not count a reply that arrives after delivery but that the platform placed before the prompt', async () => {
    const s = await setupSlow();
    const { decision } = await s.ask({ requester: 'a' });
    s.slow.deliverNext({ order: { scope: 'g1', position: [10] } });
    await flush();
    await s.slow.say('g1', 'a', '确认', { order: { scope: 'g1', position: [9] } }); // a late poll
    expect(s.ignored.map((event) => event.code)).toEqual(['stale_reply']);
    await s.slow.say('g1', 'a', '确认', { order: { scope: 'g1', position: [12] } });
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });
});
