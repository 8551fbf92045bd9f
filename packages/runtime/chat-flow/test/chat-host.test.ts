// The chat-flow host's loop: read → submit → after → ask, replies of one session in order, message
// ids deduplicated, callbacks that throw and store refusals as results, bounded sessions.
import { createMemoryStore, isParleyError } from '@parley/core';
import { defineFlow } from '@parley/fsm';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  CHAT_FLOW_REFUSAL_CODES,
  createChatFlowHost,
  createFlowSessionStore,
  DEFAULT_MAX_CHAT_SESSIONS,
  DEFAULT_MAX_SEEN_MESSAGES,
  MAX_MESSAGE_ID_LENGTH,
} from '../src/index.js';
import { createRig, type Ctx, gate, NOTES, named, readField } from './chat-helpers.js';

describe('createChatFlowHost', () => {
  it('asks, reads each reply for the current step, runs after and asks the next question', async () => {
    const done: string[] = [];
    const rig = createRig({ after: (d) => void done.push(`${d.step}#${d.part}`) });
    const host = rig.open();
    // the record is created (1): with no `begin`, the create is the turn's only write (no lease)
    expect(await host.start('c1', NOTES)).toMatchObject({ ok: true, step: 'email', version: 1 });
    expect(await host.reply('c1', 'ada@example.org')).toMatchObject({ ok: true, step: 'plan' });
    expect(await host.reply('c1', 'gold')).toMatchObject({ ok: true, step: 'plan' }); // refused by the flow
    await host.reply('c1', 'pro');
    expect(await host.reply('c1', 'YES')).toMatchObject({ ok: true, step: 'done' });
    expect(rig.asked).toEqual(['Your email?', 'Which plan?', 'Type YES']);
    expect(done).toEqual(['email#0', 'plan#0', 'confirm#0']);
    expect(named(rig, 'opened')).toEqual([{ id: 'c1', version: 1, resumed: false }]);
    expect(host.size).toBe(1);
  });

  it('processes two replies of one session in call order, each on the state the first wrote', async () => {
    const held = gate();
    const seen: string[] = [];
    const rig = createRig({
      read: async (text, ctx) => {
        seen.push(`${ctx.session.step}:${text}`);
        if (text === 'ada@example.org') await held.promise;
        return readField(text, ctx);
      },
    });
    const host = rig.open();
    await host.start('c1', NOTES);
    const first = host.reply('c1', 'ada@example.org');
    const second = host.reply('c1', 'pro');
    for (let tick = 0; tick < 20; tick++) await Promise.resolve();
    expect(seen).toEqual(['email:ada@example.org']);
    held.open();
    expect(await first).toMatchObject({ ok: true, step: 'plan' });
    expect(await second).toMatchObject({ ok: true, step: 'confirm' });
    expect(seen).toEqual(['email:ada@example.org', 'plan:pro']);
  });

  it('refuses a message id it processed before, and forgets the oldest past maxSeenMessages', async () => {
    const rig = createRig({ maxSeenMessages: 2 });
    const host = rig.open();
    await host.start('c1', NOTES);
    await host.reply('c1', 'ada@example.org', { messageId: 'm1' });
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'duplicate',
    });
    expect(named(rig, 'duplicate')).toEqual([{ id: 'c1', messageId: 'm1', at: 1_000 }]);
    await host.reply('c1', 'nope', { messageId: 'm2' }); // refused by the flow, still processed
    await host.reply('c1', 'nope', { messageId: 'm3' });
    expect((await host.reply('c1', 'pro', { messageId: 'm1' })).ok).toBe(true); // m1 was forgotten
    expect(rig.asked).toEqual(['Your email?', 'Which plan?', 'Type YES']);
  });

  it('keeps exactly the last maxSeenMessages ids, also when that is one', async () => {
    const rig = createRig({ maxSeenMessages: 1 });
    const host = rig.open();
    await host.start('c1', NOTES);
    for (const messageId of ['m1', 'm2', 'm3']) await host.reply('c1', 'nope', { messageId });
    const stored = (await rig.store.get('flow-session:c1')) as {
      data: { data: { chatFlow: { seen: unknown } } };
    };
    expect(stored.data.data.chatFlow.seen).toEqual(['m3']);
    expect(await host.reply('c1', 'nope', { messageId: 'm3' })).toMatchObject({
      ok: false,
      code: 'duplicate',
    });
  });

  it('refuses a message id that is empty, not a string or too long, before reading or writing', async () => {
    const rig = createRig();
    const host = rig.open();
    const started = await host.start('c1', NOTES);
    for (const messageId of ['', 'm'.repeat(MAX_MESSAGE_ID_LENGTH + 1), 42 as never]) {
      expect(await host.reply('c1', 'ada@example.org', { messageId })).toMatchObject({
        ok: false,
        code: 'invalid_message_id',
      });
    }
    expect(rig.asked).toEqual(['Your email?']);
    const ok = await host.reply('c1', 'ada@example.org', { messageId: 'm'.repeat(MAX_MESSAGE_ID_LENGTH) });
    // the answer with its message id, one compare-and-set (no callback with effects: no lease)
    expect(ok).toMatchObject({ ok: true, version: (started.ok ? started.version : 0) + 1 });
  });

  it('writes the message id when read answered the reply itself', async () => {
    const rig = createRig({ read: () => undefined });
    const host = rig.open();
    await host.start('c1', NOTES);
    // 1 created; 2 the lease; 3 the message id, giving the lease back
    expect(await host.reply('c1', 'hello?', { messageId: 'm1' })).toMatchObject({ ok: true, version: 3 });
    expect(await rig.store.get('flow-session:c1')).toMatchObject({
      data: { data: { chatFlow: { seen: ['m1'] } } },
    });
    expect(await host.reply('c1', 'hello?', { messageId: 'm1' })).toMatchObject({ code: 'duplicate' });
  });

  it('writes data set without a write at the end of the turn', async () => {
    const rig = createRig({
      read: (text, ctx) => void ctx.setData({ notes: [...ctx.data.notes, text] }),
    });
    const host = rig.open();
    await host.start('c1', NOTES);
    await host.reply('c1', 'a note');
    expect(await rig.store.get('flow-session:c1')).toMatchObject({
      data: { data: { notes: ['a note'], chatFlow: { seen: [], effect: null } } },
    });
  });

  it('lets begin ask or skip the question, and after ask it itself', async () => {
    let skip = false;
    const rig = createRig({
      begin: async (ctx) => {
        if (skip) return false;
        await ctx.ask();
        return undefined;
      },
      after: (_done, ctx) => ctx.ask(),
    });
    const host = rig.open();
    await host.start('c1', NOTES);
    await host.reply('c1', 'ada@example.org');
    skip = true;
    await host.start('c2', NOTES);
    expect(rig.asked).toEqual(['Your email?', 'Which plan?']);
  });

  it('calls attach with every handle it opens', async () => {
    const attached: number[] = [];
    const rig = createRig({ attach: (s) => void attached.push(s.version) });
    const host = rig.open();
    await host.start('c1', NOTES);
    await host.open('c1');
    expect(attached).toEqual([1, 1]); // as created, then as read again: the start wrote nothing more
  });
});

describe('createChatFlowHost refusals', () => {
  it('refuses an unknown session, a second start and everything after close', async () => {
    const rig = createRig();
    const host = rig.open();
    expect(await host.reply('nobody', 'hi')).toMatchObject({ ok: false, code: 'not_found' });
    expect(await host.open('nobody')).toMatchObject({ ok: false, code: 'not_found' });
    await host.start('c1', NOTES);
    expect(await host.start('c1', NOTES)).toMatchObject({ ok: false, code: 'exists' });
    host.close();
    expect(host.size).toBe(0);
    expect(await host.reply('c1', 'hi')).toMatchObject({ ok: false, code: 'closed' });
    expect(named(rig, 'refused').map((e) => (e as { code: string }).code)).toEqual([
      'not_found',
      'not_found',
      'exists',
      'closed',
    ]);
  });

  it('ends a turn whose callback throws as callback_failed with the error, writing nothing', async () => {
    const boom = new Error('reader bug');
    const rig = createRig({ read: () => Promise.reject(boom) });
    const host = rig.open();
    await host.start('c1', NOTES);
    expect(await host.reply('c1', 'x', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'callback_failed',
      cause: boom,
    });
    // the session is as started: revision 1, the message id not recorded (only the lease came and went)
    const stored = (await rig.store.get('flow-session:c1')) as { data: { rev: number; data: unknown } };
    expect([stored.data.rev, stored.data.data]).toEqual([1, NOTES]);
    const failing = createRig({ ask: () => Promise.reject('telegram down') }).open();
    expect(await failing.start('c1', NOTES)).toMatchObject({
      code: 'callback_failed',
      cause: 'telegram down',
    });
  });

  it('reports a store that keeps failing as store_failed with its error', async () => {
    const rig = createRig();
    const host = rig.open();
    await host.start('c1', NOTES);
    rig.store.fail('compareAndSet', 2);
    const result = await host.reply('c1', 'ada@example.org');
    expect(result).toMatchObject({ ok: false, code: 'store_failed' });
    expect(String((result as { cause?: unknown }).cause)).toContain('compareAndSet is down');
    rig.store.fail('compareAndSet', 2);
    expect(await host.reply('c1', 'nothing', { messageId: 'x' })).toMatchObject({ code: 'store_failed' });
  });

  it('keeps at most maxSessions open, closing the least recently used idle one', async () => {
    const held = gate();
    const rig = createRig({
      maxSessions: 1,
      read: async (text, ctx) => {
        if (text === 'wait') await held.promise;
        return readField(text, ctx);
      },
    });
    const host = rig.open();
    await host.start('c1', NOTES);
    await host.start('c2', NOTES); // c1 was idle: closed
    expect(host.size).toBe(1);
    const busy = host.reply('c2', 'wait');
    await Promise.resolve();
    expect(await host.reply('c1', 'ada@example.org')).toMatchObject({ code: 'too_many_sessions' });
    expect(await host.start('c3', NOTES)).toMatchObject({ code: 'too_many_sessions' });
    held.open();
    await busy;
    expect(await host.reply('c1', 'ada@example.org')).toMatchObject({ ok: true, step: 'plan' });
  });

  it('closes the least recently used idle session: a reply makes its session the most recent, a busy one is passed over', async () => {
    const held = gate();
    const rig = createRig({
      maxSessions: 3,
      read: async (text, ctx) => {
        if (text === 'wait') await held.promise;
        return readField(text, ctx);
      },
    });
    const host = rig.open();
    for (const id of ['c1', 'c2', 'c3']) await host.start(id, NOTES);
    expect((await host.reply('c1', 'not an email', { messageId: 'm1' })).ok).toBe(true); // c1 used last
    const busy = host.reply('c2', 'wait'); // c2, now the least recently used, is busy
    await Promise.resolve();
    expect((await host.start('c4', NOTES)).ok).toBe(true); // c3 is closed: the oldest idle one
    expect(host.size).toBe(3);
    const reads = vi.spyOn(rig.store, 'getEntry');
    expect((await host.reply('c1', 'ada@example.org', { messageId: 'm2' })).ok).toBe(true);
    expect((await host.reply('c4', 'ada@example.org', { messageId: 'm3' })).ok).toBe(true);
    expect(reads).not.toHaveBeenCalled(); // c1 and c4 are still open
    held.open();
    expect((await busy).ok).toBe(true);
    expect((await host.reply('c3', 'ada@example.org', { messageId: 'm4' })).ok).toBe(true);
    expect(reads).toHaveBeenCalled(); // c3 was closed: resumed from the store
    expect(host.size).toBe(3);
    host.close();
    expect(host.size).toBe(0);
  });

  it('throws invalid_argument for limits that are not positive integers', () => {
    const rig = createRig();
    for (const more of [{ maxSessions: 0 }, { maxSeenMessages: 1.5 }]) {
      expect(() => rig.open(more)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    try {
      rig.open({ maxSessions: -1 });
    } catch (error) {
      expect(isParleyError(error, 'invalid_argument')).toBe(true);
    }
  });

  it('exports its codes and limits', () => {
    expect(CHAT_FLOW_REFUSAL_CODES).toContain('outcome_unknown');
    expect([DEFAULT_MAX_CHAT_SESSIONS, DEFAULT_MAX_SEEN_MESSAGES]).toEqual([1_000, 32]);
  });

  it("runs a context's ways to write detached from it, each the same function every time it is read", async () => {
    const rig = createRig();
    const host = rig.open({
      begin: async (ctx) => {
        const { setData, save } = ctx;
        setData({ notes: ['begun'] });
        expect(await save()).toMatchObject({ ok: true });
        return undefined;
      },
      read: async (text, ctx) => {
        expect(ctx.submit).toBe(ctx.submit);
        const { submit, ask } = ctx;
        expect(await submit({ email: text })).toMatchObject({ ok: true });
        await ask();
        return undefined;
      },
    });
    await host.start('c1', NOTES);
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    const stored = (await rig.store.get('flow-session:c1')) as { data: { data: { notes: string[] } } };
    expect(stored.data.data.notes).toEqual(['begun']);
    expect(rig.asked).toEqual(['Your email?', 'Which plan?', 'Which plan?']);
  });

  it('takes the data of a context as it was last set', async () => {
    let last: Ctx | undefined;
    const rig = createRig({
      read: (text, ctx) => {
        last = ctx;
        return readField(text, ctx);
      },
    });
    const host = rig.open();
    await host.start('c1', { notes: ['kept'] });
    await host.reply('c1', 'ada@example.org');
    expect(last?.data).toEqual({ notes: ['kept'] });
  });
});

describe('a host given no clock', () => {
  it('reads the system clock, like its sessions', async () => {
    const flow = defineFlow({
      id: 'one',
      version: 1,
      steps: [{ name: 'name', prompt: 'Your name?', fields: z.object({ name: z.string() }) }],
    });
    const sessions = createFlowSessionStore(flow, { store: createMemoryStore() });
    const asked: string[] = [];
    const host = createChatFlowHost({
      sessions,
      read: (text) => ({ name: text }),
      ask: (p) => void asked.push(p),
    });
    await host.start('c1', {});
    expect(await host.reply('c1', 'Ada', { messageId: 'm1' })).toMatchObject({ ok: true });
    expect(asked).toEqual(['Your name?']);
    host.close();
  });
});
