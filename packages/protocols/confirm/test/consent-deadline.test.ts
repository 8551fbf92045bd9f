import { createMessageBus } from '@parley/bus';
import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import { createFakeChannel } from '@parley/testing';
import { describe, expect, it } from 'vitest';
import { type ConfirmDecision, createConfirmGate } from '../src/index.js';
import { withoutWatch } from '../../../../tests/support/stores.js';
import { ACTION, buttonToken, flush, setup } from './helpers.js';

// Issue 18, section 2: the deadline is checked when the decision is made, and host templates that
// throw are contained.

describe('the deadline at the moment of deciding', () => {
  it('[CONSENT-07] decides timed_out, not confirmed, for a 确认 that reaches a restarted gate past the deadline', async () => {
    const before = await setup({ timeoutMs: 150 });
    await before.ask();
    await before.gate.close();
    before.clock.advance(300);
    const resumed: ConfirmDecision[] = [];
    const bus = createMessageBus({ clock: before.clock });
    const channel = createFakeChannel({ channel: 'feishu', clock: before.clock });
    await bus.attach(channel);
    const after = createConfirmGate({
      bus,
      clock: before.clock,
      store: before.store,
      resume: { 'sql.delete': (decision) => void resumed.push(decision) },
    });
    const reply = channel.say('g1', 'alice', '确认'); // delivered while the new gate is loading
    expect((await reply).status).toBe('intercepted');
    await after.ready;
    await flush();
    expect(resumed).toMatchObject([{ outcome: 'timed_out', reason: 'timeout' }]);
    expect(await after.authorize('cfm_1', ACTION)).toEqual({ ok: false, code: 'not_confirmed' });
  });

  it('[CONSENT-08] decides timed_out for a card click, on a gate over a store without watch, ten minutes after the deadline', async () => {
    const clock = createManualClock({ now: 1_000_000 });
    const store = withoutWatch(createMemoryStore({ clock }));
    const other = await setup({ store, timeoutMs: 60_000 }, { clock, store });
    const owner = await setup(
      { store, timeoutMs: 60_000, generateId: createSequentialIds('own_') },
      { clock, store },
    );
    const { decision } = await owner.ask();
    const token = buttonToken(owner.channel, 'confirm');
    await owner.gate.close(); // its timer will never fire
    clock.advance(660_000);
    await other.channel.click('g1', 'alice', { confirmation: token });
    await flush();
    expect(other.decided).toMatchObject([{ outcome: 'timed_out', reason: 'timeout' }]);
    expect(await other.gate.authorize(other.decided[0]?.id ?? '', ACTION)).toEqual({
      ok: false,
      code: 'not_confirmed',
    });
    expect(await decision).toMatchObject({ outcome: 'aborted', reason: 'closed' });
  });

  it('[CONSENT-09] still settles as timed_out when messages.timedOut throws, reports it, and lets no later 确认 confirm', async () => {
    const boom = new Error('template broke');
    const h = await setup({
      timeoutMs: 60_000,
      messages: {
        timedOut: () => {
          throw boom;
        },
      },
    });
    const { decision } = await h.ask();
    h.clock.advance(60_000);
    expect(await decision).toMatchObject({ outcome: 'timed_out' });
    await flush();
    expect(h.events.error).toContain(boom);
    expect(h.channel.lastSent('g1')?.text).toContain('超时'); // the default notice instead
    h.clock.advance(3_600_000);
    await h.channel.say('g1', 'alice', '确认');
    expect(h.decided).toHaveLength(1);
    expect(await h.gate.authorize(h.decided[0]?.id ?? '', ACTION)).toEqual({
      ok: false,
      code: 'not_confirmed',
    });
  });

  it.each([
    [
      'prompt',
      {
        prompt: () => {
          throw new Error('no');
        },
      },
      'cancel',
    ],
    [
      'reprompt',
      {
        reprompt: () => {
          throw new Error('no');
        },
      },
      'reprompt',
    ],
    ['prompt returning no text', { prompt: () => undefined as unknown as string }, 'cancel'],
  ] as const)(
    '[CONSENT-10] contains a %s template that fails: aborted / prompt_failed, an error event, nothing unhandled',
    async (_, messages, unrecognised) => {
      const h = await setup({ messages, unrecognised, maxReprompts: 1 });
      const decision = h.request();
      if (unrecognised === 'reprompt') {
        await h.nextPrompt();
        await h.channel.say('g1', 'alice', 'what?');
      }
      expect(await decision).toMatchObject({ outcome: 'aborted', reason: 'prompt_failed' });
      expect(h.events.error).toHaveLength(1);
      expect(h.gate.pending()).toEqual([]);
    },
  );

  it('still counts a reply written a millisecond before the deadline', async () => {
    const h = await setup({ timeoutMs: 1_000 });
    const { decision } = await h.ask();
    h.clock.advance(999);
    await h.channel.say('g1', 'alice', '确认');
    expect(await decision).toMatchObject({ outcome: 'confirmed' });
  });
});
