import { afterEach, describe, expect, it } from 'vitest';
import { createFlakyStore, createNet, type Net } from './helpers.js';

let net: Net;
afterEach(() => {
  net.close();
  expect(net.clock.pendingTimers()).toBe(0);
});

describe('a restart with a Store', () => {
  it('resumes a pending round after a restart: the retry waits for the same request, and the reply lands', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const before = net.add('ceo', { store });
    let answer: (a: { reply: string }) => void = () => {};
    net.add('secretary').onMessage(() => new Promise((resolve) => (answer = resolve)));
    const send = {
      to: 'secretary',
      message: 'summary?',
      conversationId: 'c1',
      sendId: 's1',
      timeoutMs: 60_000,
    };
    const first = before.send(send);
    await net.flush();
    before.close(); // the process dies with the round pending
    expect(await first).toMatchObject({ ok: false, code: 'closed' });

    const after = net.add('ceo', { store });
    expect(await after.restore()).toBe(1);
    const retried = after.send(send);
    await net.flush();
    answer({ reply: '3 meetings' });
    await net.flush();
    expect(await retried).toMatchObject({ ok: true, round: 1, reply: '3 meetings' });
    expect(net.sent.filter((m) => m.kind === 'request')).toHaveLength(1);
    expect(await after.conversation('c1')).toMatchObject({ rounds: 1 });
  });

  it('keeps the round count across a restart, so restarting buys no extra rounds', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    const before = net.add('ceo', { store });
    for (let i = 0; i < 3; i++) {
      const r = before.send({ to: 'secretary', message: i, conversationId: 'c1' });
      await net.flush();
      expect(await r).toMatchObject({ ok: true });
    }
    before.close();
    const after = net.add('ceo', { store });
    await after.restore();
    for (const expected of [true, true, false]) {
      const r = after.send({ to: 'secretary', message: 'again', conversationId: 'c1' });
      await net.flush();
      expect((await r).ok).toBe(expected);
    }
  });

  it('sends a round that was claimed but never sent before the crash', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    net.add('secretary').onMessage(() => ({ reply: 'late but here' }));
    const before = net.add('ceo', { store, send: () => {} }); // the crash: nothing reaches the wire
    void before.send({ to: 'secretary', message: 'x', conversationId: 'c1', sendId: 's1' });
    await net.flush();
    before.close();
    for await (const entry of store.list('peers:ceo:req:')) await store.delete(entry.key);
    const after = net.add('ceo', { store });
    const r = after.send({ to: 'secretary', message: 'x', conversationId: 'c1', sendId: 's1' });
    await net.flush();
    expect(await r).toMatchObject({ ok: true, round: 1, reply: 'late but here' });
  });

  it('refuses with store_failed when the store fails or every write loses its race', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const ceo = net.add('ceo', { store });
    store.mode = 'throw';
    expect(await ceo.send({ to: 'secretary', message: 1 })).toMatchObject({
      ok: false,
      code: 'store_failed',
    });
    store.mode = 'lose';
    expect(await ceo.send({ to: 'secretary', message: 1 })).toMatchObject({
      ok: false,
      code: 'store_failed',
    });
    expect(net.sent).toEqual([]);
  });

  it('still returns the reply when saving it fails', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const ceo = net.add('ceo', { store });
    store.only = /:conv:/;
    net.add('secretary').onMessage(() => {
      store.mode = 'lose';
      return { reply: 'ok' };
    });
    const r = ceo.send({ to: 'secretary', message: 1, conversationId: 'c1' });
    await net.flush();
    expect(await r).toMatchObject({ ok: true, reply: 'ok' });
    store.mode = 'ok';
  });
});

describe('stored records', () => {
  it('fails a retried round with timeout when its stored deadline passes after the restart', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const before = net.add('ceo', { store });
    net.add('secretary').onMessage(() => new Promise(() => {}));
    const send = { to: 'secretary', message: 'x', conversationId: 'c1', sendId: 's1', timeoutMs: 5_000 };
    void before.send(send);
    await net.flush();
    before.close();
    const after = net.add('ceo', { store });
    await after.restore();
    const retried = after.send({ ...send, signal: new AbortController().signal });
    await net.advance(5_000);
    expect(await retried).toMatchObject({ ok: false, code: 'timeout', round: 1 });
  });

  it('refuses with store_failed when the round cannot be written', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const ceo = net.add('ceo', { store });
    store.only = /:req:/;
    store.mode = 'throw';
    expect(await ceo.send({ to: 'secretary', message: 1 })).toMatchObject({
      ok: false,
      code: 'store_failed',
      round: 1,
    });
  });

  it('refuses a value that is not a conversation with store_failed, never overwriting it', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    await store.set('peers:ceo:conv:c1', 'garbage');
    const ceo = net.add('ceo', { store });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    const r = ceo.send({ to: 'secretary', message: 1, conversationId: 'c1' });
    await net.flush();
    expect(await r).toMatchObject({ ok: false, code: 'store_failed', conversationId: 'c1' });
    expect(await store.get('peers:ceo:conv:c1')).toBe('garbage');
    expect(await ceo.conversation('c1')).toBeUndefined();
    expect(net.sent).toEqual([]);
  });

  it('returns the reply even when the conversation record vanished meanwhile', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const ceo = net.add('ceo', { store });
    net.add('secretary').onMessage(async () => {
      await store.delete('peers:ceo:conv:c1');
      return { reply: 'ok' };
    });
    const r = ceo.send({ to: 'secretary', message: 1, conversationId: 'c1' });
    await net.flush();
    expect(await r).toMatchObject({ ok: true, reply: 'ok' });
    expect(await ceo.conversation('c1')).toBeUndefined();
  });
});
