// Conversation records in the store: kernel records (`parley.peers.conversation`, format 1), decided on
// the freshly read record, so two replicas of one endpoint never give out one round twice.
import { afterEach, describe, expect, it } from 'vitest';
import { createFlakyStore, createNet, type Net } from './helpers.js';

let net: Net;
afterEach(() => {
  net.close();
  expect(net.clock.pendingTimers()).toBe(0);
});

const KEY = 'peers:ceo:conv:c1';

describe('conversation records', () => {
  it('stores a conversation as a kernel record of kind parley.peers.conversation', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const ceo = net.add('ceo', { store });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    const r = ceo.send({ to: 'secretary', message: 1, conversationId: 'c1' });
    await net.flush();
    expect(await r).toMatchObject({ ok: true, round: 1 });
    expect(await store.get(KEY)).toMatchObject({
      kind: 'parley.peers.conversation',
      version: 1,
      data: { id: 'c1', rounds: 1, from: 'ceo', to: 'secretary' },
    });
  });

  it('gives two replicas of one endpoint racing on one conversation two different rounds', async () => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    const a = net.add('ceo', { store });
    const b = net.add('ceo', { store, generateId: () => 'b-send' });
    net.add('secretary').onMessage(() => ({ reply: 'ok' }));
    const sends = [
      a.send({ to: 'secretary', message: 'from a', conversationId: 'c1', sendId: 'sa' }),
      b.send({ to: 'secretary', message: 'from b', conversationId: 'c1', sendId: 'sb' }),
    ];
    await net.flush();
    const results = await Promise.all(sends);
    expect(results.map((r) => r.ok && r.round).sort()).toEqual([1, 2]);
    expect(await a.conversation('c1')).toMatchObject({ rounds: 2 });
  });

  it.each([
    [
      'a record of the previous format (no kernel envelope)',
      {
        version: 1,
        id: 'c1',
        from: 'ceo',
        to: 'secretary',
        startedAt: 0,
        expiresAt: 9e15,
        rounds: 0,
        ended: false,
        sends: {},
      },
    ],
    [
      'a conversation record of another format version',
      { kind: 'parley.peers.conversation', version: 2, data: {}, lease: null, fence: 0, deadlineAt: null },
    ],
    [
      'a conversation record with malformed data',
      {
        kind: 'parley.peers.conversation',
        version: 1,
        data: { version: 1, id: 'c1' },
        lease: null,
        fence: 0,
        deadlineAt: null,
      },
    ],
  ])('refuses %s with store_failed, sending nothing and never overwriting it', async (_name, stored) => {
    net = createNet();
    const store = createFlakyStore(net.clock);
    await store.set(KEY, stored);
    const ceo = net.add('ceo', { store });
    const result = await ceo.send({ to: 'secretary', message: 1, conversationId: 'c1' });
    expect(result).toMatchObject({ ok: false, code: 'store_failed' });
    expect(!result.ok && result.message).toMatch(/corrupt_record|record_version/);
    expect(await store.get(KEY)).toEqual(stored);
    expect(net.sent).toEqual([]);
  });
});
