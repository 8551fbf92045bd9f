// The @example of every exported function and constant, with assertions. (Type-only examples are
// compiled and run by the repository's tests/doc-examples.test.ts.)
import { createManualClock, createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHAT_FLOW_REFUSAL_CODES,
  createActor,
  createChatFlowHost,
  createFlowSession,
  createFlowSessionStore,
  createFollowUps,
  DEFAULT_MAX_ARMED_FOLLOW_UPS,
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_SEND_LEASE_MS,
  DEFAULT_MAX_SEEN_MESSAGES,
  DEFAULT_TURN_LEASE_MS,
  MAX_MESSAGE_ID_LENGTH,
  describeFlowResult,
  FOLLOW_UP_REFUSAL_CODES,
  toFlowAudit,
  DEFAULT_EFFECT_RETRY_DELAYS_MS,
  DEFAULT_SAVE_RETRY_DELAYS_MS,
  FLOW_SESSION_RECORD_FORMAT,
  FLOW_SESSION_REFUSAL_CODES,
  MAX_RETRY_DELAYS,
  DEFAULT_HISTORY_LIMIT,
  defineFlow,
  defineMachine,
  defineRequestMachine,
  FSM_ERROR_CODES,
  FsmError,
  REFUSAL_CODES,
  requestMachine,
  toMermaid,
} from '../src/index.js';
import type { ExitVerdict } from '../src/index.js';

describe('TSDoc examples', () => {
  it('defineMachine', () => {
    const door = defineMachine({
      id: 'door',
      version: 1,
      initial: 'closed',
      context: { opened: 0 },
      guards: { unlocked: (context: { opened: number }) => context.opened < 3 },
      states: {
        closed: {
          on: { open: { target: 'open', guard: 'unlocked', assign: (c) => ({ opened: c.opened + 1 }) } },
        },
        open: { on: { close: 'closed', break: 'broken' } },
        broken: { final: true },
      },
    });
    const actor = createActor(door);
    actor.send('open');
    expect([actor.state, actor.context.opened]).toEqual(['open', 1]);
  });

  it('createActor', () => {
    const clock = createManualClock();
    const actor = createActor(requestMachine, { clock });
    const settled: string[] = [];
    actor.on('done', ({ state }) => settled.push(state));
    expect(actor.send('approve')).toEqual({ ok: true, from: 'pending', to: 'approved', event: 'approve' });
    expect(actor.send('reject').ok).toBe(false);
    const resumed = createActor(requestMachine, {
      clock,
      snapshot: JSON.parse(JSON.stringify(actor.snapshot())),
    });
    expect(resumed.state).toBe('approved');
    expect(settled).toEqual(['approved']);
  });

  it('defineFlow', () => {
    const intake = defineFlow({
      id: 'intake',
      version: 1,
      steps: [
        { name: 'goal', prompt: 'What do you want?', fields: z.object({ goal: z.string().min(3) }) },
        {
          name: 'confirm',
          prompt: 'Confirm twice',
          parts: [
            { prompt: 'Type YES', fields: z.object({ confirm1: z.literal('YES') }) },
            { prompt: 'Type YES again', fields: z.object({ confirm2: z.literal('YES') }) },
          ],
          onFailure: { action: 'back', to: 'goal', message: 'Not confirmed; start again' },
        },
      ],
    });
    const session = createFlowSession(intake);
    expect([session.submit({}).ok, session.step]).toEqual([false, 'goal']);
    session.submit({ goal: 'remove reposts' });
    session.submit({ confirm1: 'YES' });
    expect([session.submit({ confirm2: 'YES' }).ok, session.done]).toEqual([true, true]);
  });

  it('createFlowSession', () => {
    const flow = defineFlow({
      id: 'notify',
      version: 1,
      steps: [
        {
          name: 'notify',
          prompt: 'How should I notify results? (none/telegram)',
          fields: z.object({ notify_mode: z.enum(['none', 'telegram']) }),
          onFailure: {
            action: 'default',
            value: { notify_mode: 'none' },
            message: 'Unsupported mode: no notification',
          },
        },
      ],
    });
    const session = createFlowSession(flow, { clock: createManualClock() });
    const result = session.submit({ notify_mode: 'fax' });
    expect(result.ok && result.notice).toBe('Unsupported mode: no notification');
    expect(session.fields.notify).toEqual({ notify_mode: 'none' });
  });

  it('toMermaid', () => {
    expect(toMermaid(requestMachine).split('\n')[0]).toBe('stateDiagram-v2');
  });

  it('requestMachine', () => {
    const plan = createActor(requestMachine);
    plan.send({ type: 'reject', reason: 'too risky' });
    expect([plan.state, plan.context.reason]).toEqual(['rejected', 'too risky']);
    expect(plan.send('approve').ok).toBe(false);
  });

  it('defineRequestMachine', () => {
    const clock = createManualClock();
    const shutdown = createActor(defineRequestMachine({ id: 'shutdown', timeoutMs: 30_000 }), { clock });
    clock.advance(30_000);
    expect(shutdown.state).toBe('expired');
  });

  it('FsmError', () => {
    let error: unknown;
    try {
      defineMachine({ id: 'm', version: 1, initial: 'nowhere' as 'a', context: {}, states: { a: {} } });
    } catch (err) {
      error = err;
    }
    expect([error instanceof FsmError, isParleyError(error, 'invalid_definition')]).toEqual([true, true]);
  });

  it('constants', () => {
    expect(FSM_ERROR_CODES.includes('version_mismatch')).toBe(true);
    expect(REFUSAL_CODES).toContain('guard_failed');
    expect(DEFAULT_HISTORY_LIMIT).toBe(100);
  });

  it('REFUSAL_CODES (types.ts)', () => {
    const actor = createActor(requestMachine);
    actor.send('approve');
    const result = actor.send('reject'); // the request is already approved
    expect(result.ok === false && REFUSAL_CODES.includes(result.code)).toBe(true);
  });

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
    if (!started.ok) throw new Error(started.reason);
    await started.session.submit({ goal: 'delete reposts' });

    const resumed = await sessions.resume('s1');
    if (!resumed.ok) throw new Error(resumed.reason);
    const answer = await resumed.session.submit({ where: 'x.com' });
    expect([answer.ok && answer.result.ok, resumed.session.step]).toEqual([true, 'notify']);

    const lost = await started.session.submit({ mode: 'none' });
    expect(lost.ok ? 'written' : lost.code).toBe('conflict');
  });

  it('stored flow session constants', () => {
    expect(FLOW_SESSION_RECORD_FORMAT).toBe(2);
    expect(FLOW_SESSION_REFUSAL_CODES.includes('conflict')).toBe(true);
    expect(DEFAULT_SAVE_RETRY_DELAYS_MS).toEqual([1000, 2000, 4000]);
    expect(DEFAULT_EFFECT_RETRY_DELAYS_MS.length + 1).toBe(3);
    expect(MAX_RETRY_DELAYS).toBe(10);
  });

  it('describeFlowResult', () => {
    const flow = defineFlow({
      id: 'goal',
      version: 1,
      steps: [{ name: 'goal', prompt: 'What outcome?', fields: z.object({ goal_type: z.string() }) }],
    });
    const session = createFlowSession(flow);
    expect(describeFlowResult(session.submit({}))).toBe('✗ invalid_fields, retry: missing goal_type');
    expect(describeFlowResult(session.submit({ goal_type: 'delete' }))).toBe('✓ accepted → done');
  });

  it('ExitVerdict', () => {
    const perTarget = (given: Record<string, string>, targets: string[]): ExitVerdict => {
      const missing = targets.filter((target) => given[target] === undefined);
      return missing.length === 0 || { reason: 'A target has no justification', missingFields: missing };
    };
    expect(perTarget({ 'x:1': 'reposts my photo' }, ['x:1', 'x:2'])).toEqual({
      reason: 'A target has no justification',
      missingFields: ['x:2'],
    });
  });

  it('toFlowAudit', () => {
    const flow = defineFlow({
      id: 'goal',
      version: 1,
      steps: [{ name: 'goal', prompt: 'What outcome?', fields: z.object({ goal_type: z.string() }) }],
    });
    const session = createFlowSession(flow, { clock: createManualClock({ now: Date.UTC(2026, 3, 15, 9) }) });
    session.submit({});
    session.submit({ goal_type: 'delete' });
    const audit = toFlowAudit(session.snapshot());
    expect(audit.transitions).toEqual([
      { at: '2026-04-15T09:00:00.000Z', from: 'goal', to: 'done', event: 'submit' },
    ]);
    expect(audit.failures).toEqual({ goal: 1 });
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
});
