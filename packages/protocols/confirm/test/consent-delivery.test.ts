import { createManualClock, createMemoryStore } from '@parley/core';
import { createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import type { ConfirmDecision } from '../src/index.js';
import { DROP_REQUEST, flush, settledNow, setup, setupSlow, YES3 } from './helpers.js';

// Issue 18, section 1: a reply counts only for a prompt that was delivered before it was written.

describe('a reply counts only for a prompt delivered before it was written', () => {
  it('[CONSENT-01] does not let a second 确认 of one polling batch confirm the queued request whose prompt was never seen', async () => {
    const h = await setup();
    const a = await h.ask();
    const b = h.request(DROP_REQUEST);
    await h.nextQueued();
    h.clock.advance(1_000);
    const written = { createdAt: h.clock.now() - 1 }; // both written before the batch arrives
    await Promise.all([
      h.channel.say('g1', 'alice', '确认', written),
      h.channel.say('g1', 'alice', '确认', written),
    ]);
    expect(await a.decision).toMatchObject({ outcome: 'confirmed' });
    await flush();
    expect(h.decided.map((d) => `${d.action.name}:${d.outcome}`)).toEqual(['sql.delete:confirmed']);
    expect(h.gate.pending()).toMatchObject([{ actionName: 'sql.drop', state: 'prompted' }]);
    h.clock.advance(1_000);
    await h.channel.say('g1', 'alice', '取消'); // an answer written after B's prompt counts
    expect(await b).toMatchObject({ outcome: 'cancelled' });
  });

  it('[CONSENT-02] does not count an answer sent while the first prompt is still being written (no time passes)', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createFakeStore({ inner: createMemoryStore({ clock }) });
    let release: () => void = () => {};
    store.before('compareAndSet', () => new Promise<void>((resolve) => (release = resolve)));
    const h = await setup({ store }, { clock, store });
    const decision = h.request();
    await flush();
    const reply = h.channel.say('g1', 'alice', '确认'); // nothing is shown yet
    expect((await settledNow(reply, 'the early reply')).status).toBe('intercepted'); // never held
    release();
    await flush();
    expect(h.events.ignored).toMatchObject([{ code: 'before_delivery' }]);
    expect(h.decided).toEqual([]);
    await h.channel.say('g1', 'alice', '取消');
    expect(await decision).toMatchObject({ outcome: 'cancelled' });
  });

  it('[CONSENT-03] does not let a 确认 typed while reading the superseded prompt confirm its successor (no time passes)', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createFakeStore({ inner: createMemoryStore({ clock }) });
    const h = await setup({ store, whenPending: 'supersede' }, { clock, store });
    await h.ask();
    // Every write is held until release(), whichever comes first (A's decision or B's prompt
    // record): B's prompt cannot go out before its record is written.
    let holding = true;
    const held: (() => void)[] = [];
    const hold = () => (holding ? new Promise<void>((resolve) => held.push(resolve)) : undefined);
    store.before('compareAndSet', hold, 20);
    const release = (): void => {
      holding = false;
      for (const resume of held.splice(0)) resume();
    };
    const b = h.request(DROP_REQUEST);
    await flush();
    const reply = h.channel.say('g1', 'alice', '确认'); // typed while reading A's prompt; B's is being written
    expect((await settledNow(reply, 'the reply before B was sent')).status).toBe('intercepted');
    release();
    await flush();
    // B's prompt was not sent when it arrived: it answers A, which was just decided (superseded).
    expect(h.events.ignored).toMatchObject([{ code: 'after_decision', id: 'cfm_1' }]);
    expect(h.decided.map((d) => d.outcome)).toEqual(['superseded']);
    await h.channel.say('g1', 'alice', '取消');
    expect(await b).toMatchObject({ outcome: 'cancelled' });
  });

  it('[CONSENT-04] counts three back-to-back YES replies for the first step only while prompts 2 and 3 are unsent', async () => {
    const s = await setupSlow();
    const { decision } = await s.ask({ steps: YES3 });
    s.slow.deliverNext();
    await flush();
    s.clock.advance(1_000);
    const replies = [1, 2, 3].map(() => s.slow.say('g1', 'alice', 'YES'));
    await flush();
    expect(s.gate.pending()).toMatchObject([{ step: 1, delivered: false }]);
    // The person is told once that the early answers did not count; prompt 3 is never sent.
    expect(s.slow.held.map((h) => h.message.text)).toEqual([
      expect.stringContaining('too early'),
      YES3[1]?.prompt,
    ]);
    s.clock.advance(400);
    s.slow.deliverNext();
    s.slow.deliverNext();
    await Promise.all(replies);
    expect(s.ignored.map((e) => e.code)).toEqual(['before_delivery', 'before_delivery']);
    expect(s.gate.pending()).toMatchObject([{ step: 1, delivered: true }]);
    s.clock.advance(1_000);
    await s.slow.say('g1', 'alice', 'NO');
    expect(await decision).toMatchObject({ outcome: 'cancelled', failedStep: 2 });
  });

  it('[CONSENT-05] never leaves a confirmation answerable when its send fails or hangs', async () => {
    const s = await setupSlow({ timeoutMs: 60_000 });
    const { decision: hung } = await s.ask();
    s.clock.advance(1_000);
    const reply = s.slow.say('g1', 'alice', '确认'); // judged at once: too early, and the person is told
    expect((await reply).status).toBe('intercepted');
    expect(s.ignored).toMatchObject([{ code: 'before_delivery' }]);
    s.clock.advance(59_000);
    expect(await hung).toMatchObject({ outcome: 'timed_out', reason: 'timeout' });
    s.slow.deliverNext(); // the hung send resolves after all: nothing changes
    await flush();
    expect(s.gate.pending()).toEqual([]);
  });

  it('[CONSENT-06] does not count a reply the platform placed level with the prompt (a tie of create times)', async () => {
    const s = await setupSlow();
    const { decision } = await s.ask();
    s.slow.deliverNext({ order: { scope: 'g1', position: [5_000_000] } }); // Feishu: create_time in ms
    await flush();
    await s.slow.say('g1', 'alice', '确认', { order: { scope: 'g1', position: [5_000_000] } });
    expect(s.ignored).toMatchObject([{ code: 'stale_reply' }]);
    await s.slow.say('g1', 'alice', '确认', { order: { scope: 'g1', position: [5_000_001] } });
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it('counts a reply that arrives after delivery, whatever its clock stamp says (order, not clocks)', async () => {
    const s = await setupSlow();
    const { decision } = await s.ask();
    s.slow.deliverNext();
    await flush();
    await s.slow.say('g1', 'alice', '确认', { createdAt: s.clock.now() - 5_000 }); // a platform clock behind ours
    const final: ConfirmDecision = await decision;
    expect(final.outcome).toBe('confirmed');
  });
});
