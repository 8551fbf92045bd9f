// A reply whose turn runs no callback with effects (no `after`, no `claims`, a `read` that answers
// without a promise) is decided on the record the host holds and written by one compare-and-set at
// that version, with no lease: the compare-and-set alone fences it. A reply that lost the race to
// another writer is read again on the committed record under the lease (issue 36).
import { describe, expect, it, vi } from 'vitest';
import { createManualClock, createMemoryStore } from '@parley/core';
import {
  type ChatFlowHost,
  type ChatFlowResult,
  createChatFlowHost,
  createFlowSessionStore,
} from '../src/index.js';
import { createRig, type Data, gate, NOTES, readField, signup } from './chat-helpers.js';

const storedOf = async (rig: ReturnType<typeof createRig>) =>
  (await rig.store.get('flow-session:c1')) as {
    lease: unknown;
    data: { state: string; fields: unknown; data: { chatFlow: { seen: string[] } } };
  };

describe('a reply written by compare-and-set alone', () => {
  it('answers with one write and no lease when no callback with effects runs', async () => {
    const rig = createRig();
    const host = rig.open();
    await host.start('c1', NOTES);
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    const reads = vi.spyOn(rig.store, 'getEntry');
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(writes).toHaveBeenCalledTimes(1);
    expect(reads).not.toHaveBeenCalled();
    const stored = await storedOf(rig);
    expect(stored.lease).toBeNull();
    expect(stored.data.data.chatFlow.seen).toEqual(['m1']);
    expect(rig.asked).toEqual(['Your email?', 'Which plan?']);
  });

  it('takes the lease before waiting for a read that returned a promise, and gives it back with the answer', async () => {
    const rig = createRig();
    const host = rig.open({ read: async (text, ctx) => readField(text, ctx) });
    await host.start('c1', NOTES);
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(writes).toHaveBeenCalledTimes(2); // the lease; the answer, giving it back
    expect((await storedOf(rig)).lease).toBeNull();
  });

  it('refuses a message another replica answered while this one decided it as duplicate, writing it once', async () => {
    const rig = createRig();
    const a = rig.open();
    const b = rig.open();
    await a.start('c1', NOTES);
    await b.open('c1'); // both hold the record as it was created
    let first: Promise<ChatFlowResult> | undefined;
    const write = rig.store.compareAndSet.bind(rig.store);
    vi.spyOn(rig.store, 'compareAndSet').mockImplementationOnce(async (...args) => {
      first = a.reply('c1', 'ada@example.org', { messageId: 'm1' }); // lands before b's write
      await first;
      return write(...args);
    });
    expect(await b.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'duplicate',
    });
    expect(await first).toMatchObject({ ok: true, step: 'plan' });
    const stored = await storedOf(rig);
    expect(stored.data.state).toBe('plan');
    expect(stored.data.data.chatFlow.seen).toEqual(['m1']);
    expect(stored.lease).toBeNull();
  });

  it('reads a reply again on the record another replica wrote while this one decided it', async () => {
    const rig = createRig();
    const a = rig.open();
    const b = rig.open();
    await a.start('c1', NOTES);
    await b.open('c1');
    let first: Promise<ChatFlowResult> | undefined;
    const write = rig.store.compareAndSet.bind(rig.store);
    vi.spyOn(rig.store, 'compareAndSet').mockImplementationOnce(async (...args) => {
      first = a.reply('c1', 'ada@example.org', { messageId: 'm1' });
      await first;
      return write(...args);
    });
    // b decided "pro" as an email (refused by the schema); its write lost, so it is read again at plan
    expect(await b.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'confirm' });
    expect(await first).toMatchObject({ ok: true, step: 'plan' });
    const stored = await storedOf(rig);
    expect(stored.data.fields).toEqual({ email: { email: 'ada@example.org' }, plan: { plan: 'pro' } });
    expect(stored.data.data.chatFlow.seen).toEqual(['m1', 'm2']);
    expect(stored.lease).toBeNull();
  });

  it('refuses lease_held while another replica holds the chat for a callback, writing nothing', async () => {
    const rig = createRig();
    const a = rig.open();
    const b = rig.open({ begin: () => undefined, ask: () => new Promise<void>(() => undefined) });
    await a.start('c1', NOTES);
    void b.open('c1'); // its turn holds the lease and never ends
    for (let tick = 0; tick < 50 && (await storedOf(rig)).lease === null; tick++) await Promise.resolve();
    expect((await storedOf(rig)).lease).not.toBeNull();
    expect(await a.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'lease_held',
    });
    expect((await storedOf(rig)).data.state).toBe('email');
  });
});

/** Starts c1 on `a`, answers the email on another replica, then the plan on `a`, whose handle is behind. */
async function answerBehind(rig: ReturnType<typeof createRig>, a: ChatFlowHost<Data>): Promise<void> {
  const b = rig.open();
  await a.start('c1', NOTES);
  expect(await b.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({ ok: true });
  expect(await a.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'confirm' });
}

describe('a reply whose read returns a promise', () => {
  it('is read again under the lease when another replica wrote since the host last did', async () => {
    const rig = createRig();
    const reads: string[] = [];
    const a = rig.open({
      read: async (text, ctx) => {
        reads.push(ctx.session.step);
        return readField(text, ctx);
      },
    });
    const b = rig.open();
    await a.start('c1', NOTES);
    expect(await b.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({ ok: true });
    expect(await a.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'confirm' });
    expect(reads).toEqual(['email', 'plan']); // decided on what a held first, then on what b wrote
    expect((await storedOf(rig)).lease).toBeNull();
  });

  it('is read again under the lease when its own write finds that another replica wrote first', async () => {
    const rig = createRig();
    const a = rig.open({
      read: async (text, ctx) => {
        ctx.setData({ notes: [...ctx.data.notes, ctx.session.step] });
        expect(await ctx.save()).toMatchObject({ ok: true });
        return readField(text, ctx);
      },
    });
    await answerBehind(rig, a);
    const stored = (await rig.store.get('flow-session:c1')) as { lease: unknown; data: { data: unknown } };
    expect(stored.data.data).toMatchObject({ notes: ['plan'] }); // written once, on what b wrote
    expect(stored.lease).toBeNull();
  });

  it('is read again under the lease when a write of a read without a promise finds that another replica wrote first', async () => {
    const rig = createRig();
    const saves: Promise<unknown>[] = [];
    const a = rig.open({
      read: (text, ctx) => {
        ctx.setData({ notes: [...ctx.data.notes, ctx.session.step] });
        saves.push(ctx.save().catch((error: unknown) => error));
        return readField(text, ctx);
      },
    });
    await answerBehind(rig, a);
    const stored = (await rig.store.get('flow-session:c1')) as { lease: unknown; data: { data: unknown } };
    expect(stored.data.data).toMatchObject({ notes: ['plan'] });
    expect(stored.lease).toBeNull();
    expect(await saves[0]).toMatchObject({ code: 'conflict' }); // the first try's write was not made
  });

  it('is refused lease_held when another replica holds the chat, once the read ended', async () => {
    const rig = createRig();
    const reading = gate();
    const a = rig.open({
      read: async (text, ctx) => {
        await reading.promise;
        return readField(text, ctx);
      },
    });
    const b = rig.open({ begin: () => undefined, ask: () => new Promise<void>(() => undefined) });
    await a.start('c1', NOTES);
    void b.open('c1'); // its turn holds the lease and never ends
    for (let tick = 0; tick < 50 && (await storedOf(rig)).lease === null; tick++) await Promise.resolve();
    let settled = false;
    const answer = a.reply('c1', 'ada@example.org', { messageId: 'm1' });
    void answer.then(() => {
      settled = true;
    });
    for (let tick = 0; tick < 50; tick++) await Promise.resolve();
    expect(settled).toBe(false); // the lease was refused, and the turn waits for its read to end
    reading.open();
    expect(await answer).toMatchObject({ ok: false, code: 'lease_held' });
    expect((await storedOf(rig)).data.state).toBe('email');
  });
});

describe('a reply written by compare-and-set alone, across a restart', () => {
  it('refuses a message answered before the restart as duplicate and answers the next on the stored record', async () => {
    const rig = createRig();
    const before = rig.open();
    await before.start('c1', NOTES);
    expect(await before.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({ ok: true });
    const after = rig.open(); // the process restarted: a new host and session store on the same store
    expect(await after.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'duplicate',
    });
    expect(await after.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'confirm' });
    // the host from before the restart is behind: its answer is read again on the committed record
    expect(await before.reply('c1', 'YES', { messageId: 'm3' })).toMatchObject({ ok: true, step: 'done' });
    expect((await storedOf(rig)).data.data.chatFlow.seen).toEqual(['m1', 'm2', 'm3']);
  });

  it('refuses an answer once the session expired, writing nothing', async () => {
    const clock = createManualClock({ now: 1_000 });
    const store = createMemoryStore({ clock });
    const sessions = createFlowSessionStore(signup, { store, clock, idleTimeoutMs: 1_000 });
    const host = createChatFlowHost({ sessions, clock, read: (text) => ({ email: text }) });
    await host.start('c1', {});
    clock.advance(1_000);
    expect(await host.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'expired',
    });
    const stored = (await store.get('flow-session:c1')) as { data: { state: string } };
    expect(stored.data.state).toBe('email');
  });
});
