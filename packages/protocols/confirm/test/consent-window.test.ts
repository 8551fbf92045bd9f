import { createMessageBus } from '@parley/bus';
import { type Clock, createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { createFakeChannel, createFakeStore } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { type ConfirmEvents, createConfirmGate } from '../src/index.js';
import { ACTION, flush, setup, setupSlow } from './helpers.js';

// Issue 30, section 3: the person gets the whole window, counted from delivery and robust to
// wall-clock steps, and is told what happened to an answer that came too late.

const request = { sessionKey: 'feishu:g1', action: ACTION, summary: 'DELETE', requester: 'alice' } as const;

describe('the answering window', () => {
  it('[WINDOW-01] counts from delivery: a slow platform takes no time away from the person', async () => {
    const s = await setupSlow({ timeoutMs: 60_000 });
    const decision = s.gate.request(request);
    await flush();
    s.clock.advance(30_000); // the send takes 30 s
    s.slow.deliverNext();
    await flush();
    s.clock.advance(50_000); // 80 s after the request, 50 s after the prompt was shown
    await s.slow.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it('[WINDOW-02] is not ended early by a forward step of the wall clock', async () => {
    const manual = createManualClock({ now: 1_000_000 });
    let offset = 0;
    const clock: Clock = {
      now: () => manual.now() + offset,
      setTimeout: (callback, delayMs, options) => manual.setTimeout(callback, delayMs, options),
      clearTimeout: (handle) => manual.clearTimeout(handle),
    };
    const bus = createMessageBus({ clock });
    const channel = createFakeChannel({ channel: 'feishu', clock });
    await bus.attach(channel);
    const gate = createConfirmGate({ bus, clock, timeoutMs: 60_000, generateId: createSequentialIds('c') });
    const prompted = new Promise((resolve) => gate.on('prompted', resolve));
    const decision = gate.request(request);
    await prompted;
    manual.advance(10_000);
    offset = 3_600_000; // NTP steps the wall clock an hour ahead; 10 s of the window have passed
    await channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });

  it('[WINDOW-03] still ends a prompt whose send never resolves', async () => {
    const s = await setupSlow({ timeoutMs: 60_000 });
    const decision = s.gate.request(request);
    await flush();
    s.clock.advance(60_000);
    expect(await decision).toMatchObject({ outcome: 'timed_out' });
  });
});

describe('an answer after the decision', () => {
  it('[WINDOW-04] is absorbed with a reply saying it was already confirmed', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    await h.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
    await flush();
    expect((await h.channel.say('g1', 'alice', '确认')).status).toBe('intercepted');
    await flush();
    expect(h.channel.lastSent('g1')?.text).toContain('already confirmed');
  });

  it('[WINDOW-05] uses the host text for a late answer, and tells cancelled and expired apart', async () => {
    const h = await setup({ messages: { late: (_summary, outcome) => `late:${outcome}` } });
    const first = await h.ask();
    await h.channel.say('g1', 'alice', '取消');
    await first.decision;
    await h.channel.say('g1', 'alice', '确认');
    await flush();
    expect(h.channel.lastSent('g1')?.text).toBe('late:cancelled');
    const second = await h.ask({ timeoutMs: 1_000 });
    h.clock.advance(1_000);
    await second.decision;
    await h.channel.say('g1', 'alice', '确认');
    await flush();
    expect(h.channel.lastSent('g1')?.text).toBe('late:timed_out');
  });

  it('[WINDOW-06] is not absorbed after prompt_failed: no prompt was shown, so the message is chat', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const bus = createMessageBus({ clock });
    const channel = createFakeChannel({ channel: 'feishu', clock });
    await bus.attach(channel);
    channel.failSends(1, new Error('platform down'));
    const gate = createConfirmGate({ bus, clock, cards: false });
    const decision = await gate.request(request);
    expect(decision).toMatchObject({ outcome: 'aborted', reason: 'prompt_failed' });
    expect((await channel.say('g1', 'alice', '确认')).status).toBe('queued'); // reaches the agent
  });
});

describe('the prompted event', () => {
  it('[WINDOW-07] fires once per delivered prompt, also for a re-prompt overtaken before its delivery was written', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = createFakeStore({ inner: createMemoryStore({ clock }) });
    const h = await setup({ store, unrecognised: 'reprompt', cards: false }, { clock, store });
    const prompted: ConfirmEvents['prompted'][] = [];
    h.gate.on('prompted', (event) => prompted.push(event));
    const { decision } = await h.ask();
    let release: () => void = () => {};
    let writes = 0;
    const holdSecondWrite = () =>
      ++writes === 2 ? new Promise<void>((resolve) => (release = resolve)) : undefined;
    store.before('compareAndSet', holdSecondWrite, 2); // re-prompt 1's record, then its delivery (held)
    await h.channel.say('g1', 'alice', 'maybe');
    await flush();
    await h.channel.say('g1', 'alice', 'hmm'); // re-prompt 2, while re-prompt 1's delivery is being written
    release();
    await flush();
    await flush();
    expect(h.channel.sent.filter((m) => m.text.includes('未能识别'))).toHaveLength(2);
    expect(prompted.map((event) => event.reprompt)).toEqual([false, true, true]);
    await h.channel.say('g1', 'alice', '取消');
    expect(await decision).toMatchObject({ outcome: 'cancelled' });
  });
});
