import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createConfirmGate } from '../src/index.js';
import { ACTION, setup } from './helpers.js';

describe('a second request for a busy session', () => {
  it('queues it and prompts it once the first settles (default)', async () => {
    const h = await setup();
    const first = await h.ask();
    const wait = h.nextQueued();
    const second = h.request({ action: { name: 'drop' }, summary: 'DROP t' });
    expect(await wait).toMatchObject({ sessionKey: 'feishu:g1', position: 1 });
    expect(
      h.gate
        .pending()
        .map((p) => p.state)
        .sort(),
    ).toEqual(['prompted', 'queued']);
    const prompted = h.nextPrompt();
    await h.channel.say('g1', 'alice', '确认');
    expect((await first.decision).outcome).toBe('confirmed');
    await prompted;
    expect(h.channel.lastSent('g1')?.text).toContain('DROP t');
    await h.channel.say('g1', 'alice', '取消');
    expect((await second).outcome).toBe('cancelled');
  });

  it('refuses it past maxQueuedPerSession with session_busy', async () => {
    const h = await setup({ maxQueuedPerSession: 0 });
    await h.ask();
    const second = await h.request();
    expect(second).toMatchObject({ outcome: 'refused', reason: 'session_busy' });
  });

  it('refuses it at once under whenPending: reject', async () => {
    const h = await setup({ whenPending: 'reject' });
    const first = await h.ask();
    const second = await h.request();
    expect(second).toMatchObject({ outcome: 'refused', reason: 'session_busy' });
    expect(h.gate.pending()).toHaveLength(1);
    await h.channel.say('g1', 'alice', '确认');
    expect((await first.decision).outcome).toBe('confirmed');
  });

  it('settles the old one as superseded under whenPending: supersede', async () => {
    const h = await setup({ whenPending: 'supersede', maxQueuedPerSession: 8 });
    const first = await h.ask();
    const second = await h.ask({ action: { name: 'drop' }, summary: 'DROP t' });
    expect(await first.decision).toMatchObject({ outcome: 'superseded', reason: 'superseded' });
    await h.channel.say('g1', 'alice', 'yes');
    expect(await second.decision).toMatchObject({ outcome: 'confirmed', action: { name: 'drop' } });
    expect(await h.gate.authorize(await first.decision, ACTION)).toEqual({
      ok: false,
      code: 'not_confirmed',
    });
  });
});

describe('unrecognised replies', () => {
  it('re-prompts up to maxReprompts times, then cancels', async () => {
    const h = await setup({ unrecognised: 'reprompt', maxReprompts: 2 });
    const { decision } = await h.ask();
    for (const reply of ['maybe', 'hmm']) {
      const prompted = h.nextPrompt();
      expect((await h.channel.say('g1', 'alice', reply)).status).toBe('intercepted');
      expect(await prompted).toMatchObject({ reprompt: true });
    }
    expect(h.channel.sent.filter((m) => m.text.includes('未能识别'))).toHaveLength(2);
    await h.channel.say('g1', 'alice', 'what');
    expect(await decision).toMatchObject({ outcome: 'cancelled', reason: 'unrecognised', reply: 'what' });
  });

  it('accepts a recognised reply after a re-prompt', async () => {
    const h = await setup({ unrecognised: 'reprompt' });
    const { decision } = await h.ask();
    const prompted = h.nextPrompt();
    await h.channel.say('g1', 'alice', '?');
    await prompted;
    h.clock.advance(1);
    await h.channel.say('g1', 'alice', '确认');
    expect((await decision).outcome).toBe('confirmed');
  });
});

describe('who may answer', () => {
  it('lets any member confirm under approvers: any', async () => {
    const h = await setup({ approvers: 'any' });
    const { decision } = await h.ask();
    await h.channel.say('g1', 'bob', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'bob' });
  });

  it('lets only listed approvers confirm, per request', async () => {
    const h = await setup();
    const { decision } = await h.ask({ approvers: ['dba'] });
    expect((await h.channel.say('g1', 'alice', '确认')).status).toBe('queued');
    await h.channel.say('g1', 'dba', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed', decidedBy: 'dba' });
  });

  it('never counts the bot itself or another bot', async () => {
    const h = await setup({ approvers: 'any' });
    await h.ask();
    expect((await h.channel.say('g1', 'bot', '确认', { fromSelf: true })).status).toBe('queued');
    expect((await h.channel.say('g1', 'bot2', '确认', { senderIsBot: true })).status).toBe('queued');
    expect(h.events.ignored.map((e) => e.code)).toEqual(['bot', 'bot']);
    expect(h.decided).toEqual([]);
  });

  it('does not count edits or recalls', async () => {
    const h = await setup();
    await h.ask();
    expect((await h.channel.say('g1', 'alice', '确认', { kind: 'edit' })).status).toBe('queued');
    expect((await h.channel.say('g1', 'alice', '确认', { kind: 'recall' })).status).toBe('queued');
    expect(h.decided).toEqual([]);
  });
});

describe('cancellation, failures and close', () => {
  it('aborts when the signal aborts, and at once when it already had', async () => {
    const h = await setup();
    const controller = new AbortController();
    const { decision } = await h.ask({ signal: controller.signal });
    controller.abort();
    expect(await decision).toMatchObject({ outcome: 'aborted', reason: 'signal' });
    const again = await h.request({ requester: 'a', signal: controller.signal });
    expect(again).toMatchObject({ outcome: 'aborted', reason: 'signal' });
    expect(h.clock.pendingTimers()).toBe(0);
    expect((await h.channel.say('g1', 'alice', 'hello')).status).toBe('queued'); // chat goes on to the agent
  });

  it('aborts with prompt_failed when the prompt cannot be sent', async () => {
    const h = await setup();
    h.channel.failSends(1);
    const decision = await h.request();
    expect(decision).toMatchObject({ outcome: 'aborted', reason: 'prompt_failed' });
    expect(h.events.error).toHaveLength(1);
  });

  it('refuses bad requests and options', async () => {
    const h = await setup();
    const base = { sessionKey: 'feishu:g1', action: ACTION, summary: 's', requester: 'alice' };
    for (const timeoutMs of [0, -1, Number.NaN, 2 ** 31]) {
      await expect(h.gate.request({ ...base, timeoutMs })).rejects.toMatchObject({ code: 'invalid_timeout' });
    }
    const invalid = [
      { ...base, sessionKey: 'nope' },
      { ...base, summary: ' ' },
      { ...base, requester: '' },
      { ...base, action: null },
      { ...base, steps: [] },
      { ...base, steps: [{ prompt: 'p', expect: ' ' }] },
      { ...base, approvers: [] },
    ];
    for (const request of invalid) {
      await expect(h.gate.request(request as never)).rejects.toMatchObject({ code: 'invalid_argument' });
    }
    await expect(h.gate.request({ ...base, action: { name: '' } })).rejects.toMatchObject({
      code: 'invalid_action',
    });
    await expect(
      h.gate.request({ ...base, action: { name: 'x', args: { at: new Date() } as never } }),
    ).rejects.toMatchObject({
      code: 'invalid_action',
    });
    const bus = createMessageBus();
    expect(() => createConfirmGate({ bus, timeoutMs: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_timeout' }),
    );
    expect(() => createConfirmGate({ bus, whenPending: 'drop' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createConfirmGate({ bus, maxReprompts: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(() => createConfirmGate({ bus, approvers: 'me' as never })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    const dotted = createConfirmGate({ bus, generateId: () => 'a.b' });
    await expect(dotted.request(base)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('resolves local waiters as aborted on close, removes its interceptor and refuses new requests', async () => {
    const h = await setup();
    const { decision } = await h.ask();
    const wait = h.nextQueued();
    const queued = h.request();
    await wait;
    await h.gate.close();
    await h.gate.close();
    expect(await decision).toMatchObject({ outcome: 'aborted', reason: 'closed' });
    expect(await queued).toMatchObject({ outcome: 'aborted', reason: 'closed' });
    expect(h.clock.pendingTimers()).toBe(0);
    expect((await h.channel.say('g1', 'alice', '确认')).status).toBe('queued');
    const error = await h.gate
      .request({ sessionKey: 'feishu:g1', action: ACTION, summary: 's', requester: 'a' })
      .catch((e: unknown) => e);
    expect(isParleyError(error, 'closed')).toBe(true);
  });
});
