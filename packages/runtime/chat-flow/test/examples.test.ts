// The @example of every exported function and constant, with assertions. (Type-only examples are
// compiled and run by the repository's tests/doc-examples.test.ts.)
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { defineFlow } from '@parley/fsm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHAT_FLOW_ERROR_CODES,
  CHAT_FLOW_REFUSAL_CODES,
  ChatFlowError,
  createChatFlowHost,
  createFlowSessionStore,
  createFollowUps,
  DEFAULT_EFFECT_RETRY_DELAYS_MS,
  DEFAULT_MAX_ARMED_FOLLOW_UPS,
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_MAX_SEEN_MESSAGES,
  DEFAULT_SAVE_RETRY_DELAYS_MS,
  DEFAULT_SEND_LEASE_MS,
  DEFAULT_TURN_LEASE_MS,
  FLOW_SESSION_RECORD_FORMAT,
  FLOW_SESSION_REFUSAL_CODES,
  FOLLOW_UP_REFUSAL_CODES,
  MAX_MESSAGE_ID_LENGTH,
  MAX_RETRY_DELAYS,
} from '../src/index.js';

describe('TSDoc examples', () => {
  it('createFlowSessionStore', async () => {
    const flow = defineFlow({
      id: 'intake',
      version: 1,
      steps: [
        {
          name: 'goal',
          prompt: 'Goal and where?',
          fields: z.object({ goal: z.string(), where: z.string() }),
        },
        { name: 'notify', prompt: 'Notify how?', fields: z.object({ mode: z.enum(['none', 'email']) }) },
      ],
    });
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const sessions = createFlowSessionStore(flow, { store, clock, draftSteps: ['goal'] });

    const started = await sessions.start('s1', { data: { user: 'ann' } });
    if (!started.ok) throw new Error(started.message);
    await started.session.submit({ goal: 'delete reposts' });

    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.message);
    const answer = await resumed.session.submit({ where: 'x.com' });
    expect([answer.ok && answer.result.ok, resumed.session.step]).toEqual([true, 'notify']);

    const lost = await started.session.submit({ mode: 'none' });
    expect(lost.ok ? 'written' : lost.code).toBe('conflict');
  });

  it('stored flow session constants', () => {
    expect(FLOW_SESSION_RECORD_FORMAT).toBe(5);
    expect(FLOW_SESSION_REFUSAL_CODES.includes('conflict')).toBe(true);
    expect(DEFAULT_SAVE_RETRY_DELAYS_MS).toEqual([1000, 2000, 4000]);
    expect(DEFAULT_EFFECT_RETRY_DELAYS_MS.length + 1).toBe(3);
    expect(MAX_RETRY_DELAYS).toBe(10);
  });

  it('createFollowUps', async () => {
    const clock = createManualClock({ now: 0 });
    const store = createMemoryStore({ clock });
    const sent: string[] = [];
    const followUps = createFollowUps<string>({ store, clock, send: (f) => void sent.push(f.payload) });
    await followUps.schedule('sess_1', 7 * 86_400_000, 'Check that the content stays down');
    followUps.close();

    const restarted = createFollowUps<string>({ store, clock, send: (f) => void sent.push(f.payload) });
    await restarted.arm('sess_1');
    clock.advance(7 * 86_400_000);
    await restarted.settled();
    expect([sent, (await restarted.get('sess_1'))?.sentAt]).toEqual([
      ['Check that the content stays down'],
      604800000,
    ]);
  });

  it('follow-up constants', () => {
    expect(FOLLOW_UP_REFUSAL_CODES.includes('already_sent')).toBe(true);
    expect(DEFAULT_MAX_ARMED_FOLLOW_UPS).toBe(10000);
    expect(DEFAULT_SEND_LEASE_MS).toBe(60000);
  });

  it('createChatFlowHost', async () => {
    const flow = defineFlow({
      id: 'signup',
      version: 1,
      steps: [
        { name: 'email', prompt: 'Your email?', fields: z.object({ email: z.string().email() }) },
        { name: 'plan', prompt: 'Which plan?', fields: z.object({ plan: z.enum(['free', 'pro']) }) },
      ],
    });
    const clock = createManualClock({ now: 0 });
    const sessions = createFlowSessionStore(flow, { store: createMemoryStore({ clock }), clock });
    const sent: string[] = [];
    const host = createChatFlowHost({
      sessions,
      clock,
      read: (text, ctx) => (ctx.session.step === 'email' ? { email: text } : { plan: text }),
      after: async (done, ctx) => {
        if (done.step === 'plan') await ctx.effect('welcome-mail', () => void sent.push('welcome'));
      },
      ask: (prompt) => void sent.push(prompt),
    });
    await host.start('chat_1', {});
    await host.reply('chat_1', 'ada@example.org', { messageId: 'm1' });
    const twice = await host.reply('chat_1', 'ada@example.org', { messageId: 'm1' }); // delivered twice: refused duplicate
    await host.reply('chat_1', 'pro', { messageId: 'm2' });
    expect(sent).toEqual(['Your email?', 'Which plan?', 'welcome']);
    expect(twice).toMatchObject({ ok: false, code: 'duplicate' });
  });

  it('chat-flow host constants', () => {
    expect(CHAT_FLOW_REFUSAL_CODES.includes('duplicate')).toBe(true);
    expect(DEFAULT_MAX_CHAT_SESSIONS).toBe(1000);
    expect(DEFAULT_MAX_SEEN_MESSAGES).toBe(32);
    expect(MAX_MESSAGE_ID_LENGTH).toBe(256);
    expect(DEFAULT_TURN_LEASE_MS).toBe(60000);
  });

  it('ChatFlowError', () => {
    let error: unknown;
    try {
      createFollowUps({ store: createMemoryStore(), send: async () => {}, maxArmed: 0 });
    } catch (err) {
      error = err;
    }
    expect([error instanceof ChatFlowError, isParleyError(error, 'invalid_argument')]).toEqual([true, true]);
    expect(CHAT_FLOW_ERROR_CODES).toEqual(['invalid_argument']);
  });
});
