// The records @parley/fsm, @parley/conflict and @parley/settings keep through the durable kernel, on a
// real Redis shared by two replicas: each acts on the committed record, never on its own copy.
import { createManualClock } from '@parley/core';
import { createReviewGate } from '@parley/conflict';
import { defineFlow } from '@parley/fsm';
import { createChatFlowHost, createFlowSessionStore } from '@parley/chat-flow';
import { createSettings, defineSetting, defineSettings } from '@parley/settings';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedisStore } from '../src/index.js';
import { type RedisServer, startRedis } from './helpers.js';

let server: RedisServer;
let prefix = 0;

beforeAll(async () => {
  server = await startRedis();
});
afterEach(() => server.disconnectClients());
afterAll(async () => {
  await server.stop();
});

/** Two replicas' stores: their own connections, one key space. */
function replicas() {
  const keys = `kr${++prefix}:`;
  const clock = createManualClock({ now: 1_000 });
  const store = () => createRedisStore({ redis: server.client(), prefix: keys });
  return { clock, a: store(), b: store() };
}

const signup = defineFlow({
  id: 'signup',
  version: 1,
  steps: [
    { name: 'email', prompt: 'Your email?', fields: z.object({ email: z.string().email() }) },
    { name: 'plan', prompt: 'Which plan?', fields: z.object({ plan: z.enum(['free', 'pro']) }) },
  ],
});

describe('chat-flow hosts on two replicas over Redis', () => {
  it('applies a reply on the second replica to what the first committed, and refuses a redelivery there', async () => {
    const { clock, a, b } = replicas();
    const host = (store: typeof a) =>
      createChatFlowHost({
        sessions: createFlowSessionStore(signup, { store, clock }),
        clock,
        read: (text, ctx) => (ctx.session.step === 'email' ? { email: text } : { plan: text }),
      });
    const one = host(a);
    const two = host(b);
    await one.start('c1', {});
    await two.open('c1');
    expect(await one.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(await two.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      code: 'duplicate',
    });
    expect(await two.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'done' });
    const stored = (await a.get('flow-session:c1')) as { kind: string; data: { fields: unknown } };
    expect(stored.kind).toBe('parley.fsm.session');
    expect(stored.data.fields).toEqual({ email: { email: 'ada@example.org' }, plan: { plan: 'pro' } });
  });
});

describe('review rounds and settings layers on two replicas over Redis', () => {
  it('counts the revise rounds of one task across two gates', async () => {
    const { clock, a, b } = replicas();
    const revise = { verdict: 'revise', issues: [{ description: 'again' }] } as const;
    const gate = (store: typeof a) =>
      createReviewGate({ review: () => revise, store, clock, maxRevisions: 2 });
    const run = (store: typeof a) =>
      gate(store).run({ input: 'brief', taskId: 't', generate: async () => ({ draft: 1 }) });
    expect(await run(a)).toMatchObject({ ok: false, code: 'revise_limit', retries: 2 });
    expect(await run(b)).toMatchObject({ ok: false, code: 'revise_limit', retries: 2 });
    expect(await b.get('review:t')).toMatchObject({ kind: 'parley.conflict.rounds', data: { revisions: 2 } });
  });

  it('keeps both of two settings writes made on two replicas at once', async () => {
    const { clock, a, b } = replicas();
    const registry = defineSettings([
      defineSetting({ key: 'ui.a', schema: z.boolean(), default: false }),
      defineSetting({ key: 'ui.b', schema: z.boolean(), default: false }),
    ]);
    const one = createSettings(registry, { store: a, clock });
    const two = createSettings(registry, { store: b, clock });
    await Promise.all([one.set('c1', 'ui.a', true), two.set('c1', 'ui.b', true)]);
    const snap = await one.snapshot('c1');
    expect([snap.values, snap.version.campaign]).toEqual([{ 'ui.a': true, 'ui.b': true }, 2]);
  });
});
